import type { ReactNode } from "react";

/**
 * Renders a product's rich-content description (Ricos nodes) as plain React elements. Only known node types are
 * drawn; anything else (HTML, embeds, app embeds, polls, maps…) is left out, so no markup from the catalogue ever
 * runs. Text is always text (React escapes it); links keep only http(s), mailto and tel URLs or paths on this site,
 * and always get rel="noopener noreferrer".
 */

export interface RichNode {
  type: string;
  id?: string;
  nodes?: RichNode[];
  [key: string]: unknown;
}

const MAX_DEPTH = 20;

/** A URL safe to put in href/src: http(s), mailto, tel, or a path on this site; null otherwise. */
export function safeUrl(raw: unknown, { allowMail = true } = {}): string | null {
  if (typeof raw !== "string") return null;
  const url = raw.trim();
  if (!url || url.length > 2048) return null;
  if (url.startsWith("/") && !url.startsWith("//") && !url.startsWith("/\\")) return url;
  try {
    const parsed = new URL(url);
    const allowed = allowMail ? ["http:", "https:", "mailto:", "tel:"] : ["http:", "https:"];
    return allowed.includes(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

function textOf(node: RichNode, key: string): ReactNode {
  const data = obj(node.textData);
  const text = typeof data.text === "string" ? data.text : "";
  const decorations = Array.isArray(data.decorations) ? data.decorations.map(obj) : [];
  let out: ReactNode = text;
  for (const d of decorations) {
    if (d.type === "BOLD") out = <strong>{out}</strong>;
    else if (d.type === "ITALIC") out = <em>{out}</em>;
    else if (d.type === "UNDERLINE") out = <u>{out}</u>;
  }
  const link = decorations.find((d) => d.type === "LINK");
  if (link) {
    const target = obj(obj(link.linkData).link);
    const href = safeUrl(target.url);
    if (href) {
      const external = !href.startsWith("/");
      out = (
        <a href={href} rel="noopener noreferrer" {...(external && target.target === "BLANK" ? { target: "_blank" } : {})}>
          {out}
        </a>
      );
    }
  }
  return <span key={key}>{out}</span>;
}

function children(node: RichNode, depth: number): ReactNode[] {
  return (Array.isArray(node.nodes) ? node.nodes : []).map((n, i) => renderNode(n, `${i}`, depth + 1));
}

function renderNode(node: RichNode, key: string, depth: number): ReactNode {
  if (depth > MAX_DEPTH || !node || typeof node !== "object") return null;
  switch (node.type) {
    case "TEXT":
      return textOf(node, key);
    case "PARAGRAPH":
      return <p key={key}>{children(node, depth)}</p>;
    case "HEADING": {
      // The product name is the page's h1: rich headings start at h2.
      const level = Math.min(Math.max(Number(obj(node.headingData).level) || 2, 2), 6);
      const H = `h${level}` as "h2";
      return <H key={key}>{children(node, depth)}</H>;
    }
    case "BULLETED_LIST":
      return <ul key={key}>{children(node, depth)}</ul>;
    case "ORDERED_LIST":
      return <ol key={key}>{children(node, depth)}</ol>;
    case "LIST_ITEM":
      return <li key={key}>{children(node, depth)}</li>;
    case "BLOCKQUOTE":
      return <blockquote key={key}>{children(node, depth)}</blockquote>;
    case "CODE_BLOCK":
      return (
        <pre key={key}>
          <code>{children(node, depth)}</code>
        </pre>
      );
    case "DIVIDER":
      return <hr key={key} />;
    case "IMAGE": {
      const image = obj(obj(node.imageData).image);
      const src = safeUrl(obj(image.src).url, { allowMail: false });
      if (!src) return null;
      const width = Number(image.width) || undefined;
      const height = Number(image.height) || undefined;
      const alt = typeof obj(node.imageData).altText === "string" ? (obj(node.imageData).altText as string) : "";
      return <img key={key} src={src} alt={alt} width={width} height={height} loading="lazy" decoding="async" />;
    }
    // Containers whose own data is layout only: draw what they hold.
    case "LAYOUT":
    case "LAYOUT_CELL":
    case "COLLAPSIBLE_LIST":
    case "COLLAPSIBLE_ITEM":
    case "COLLAPSIBLE_ITEM_TITLE":
    case "COLLAPSIBLE_ITEM_BODY":
    case "CAPTION":
      return <div key={key}>{children(node, depth)}</div>;
    default:
      // HTML, EMBED, APP_EMBED, POLL, MAP, VIDEO, GALLERY, FILE, … : not drawn.
      return null;
  }
}

export function RichContent({ nodes }: { nodes: RichNode[] }) {
  return <div className="rich-content">{nodes.map((n, i) => renderNode(n, `${i}`, 0))}</div>;
}
