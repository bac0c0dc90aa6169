import type { RichNode } from "./schemas";

/**
 * What the rich-text modules share. A product's rich description is a Ricos document (RichNode, what the API
 * stores). It comes in as the console's Markdown (rich-text-markdown.ts) or as HTML (rich-text-sanitise.ts), and
 * goes out as Markdown, HTML (rich-text-render.ts) or plain text (rich-text-plain.ts); rich-text.ts picks the
 * format of a description string. Only a safe subset is ever kept: no markup gets in, and links only to safe targets.
 */

/** A TEXT node's styles: bold, italic, underline, link. */
export interface Decoration {
  type: "BOLD" | "ITALIC" | "UNDERLINE" | "LINK";
  fontWeightValue?: number;
  italicData?: boolean;
  linkData?: { link: { url: string; target?: string; rel?: { noreferrer: boolean } } };
}

/** Ricos ids are unique within one document; a short counter is enough. */
export function idMaker(): () => string {
  let n = 0;
  return () => `md${(++n).toString(36)}`;
}

/** Link targets the Markdown editor keeps: http(s), mailto, tel and site-relative paths. */
export const SAFE_URL = /^(https?:\/\/|mailto:|tel:|\/(?!\/))/i;

/** A node's data object (an empty one for anything else), to read stored nodes without trusting their shape. */
export const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/** A paragraph of inline nodes. */
export function paragraph(nodes: RichNode[], nextId: () => string): RichNode {
  return { type: "PARAGRAPH", id: nextId(), nodes, paragraphData: {} };
}

/** A link target kept from HTML: an absolute http(s) or mailto URL, nothing else. */
export function htmlLink(raw: string | undefined): string | null {
  const url = (raw ?? "").trim();
  if (!url || url.length > 2048 || !/^(https?:\/\/|mailto:)/i.test(url)) return null;
  try {
    new URL(url);
    return url;
  } catch {
    return null;
  }
}

/** Deeper than this, nodes are left out (the storefront's renderer draws no deeper either). */
export const MAX_DEPTH = 20;
