import { markdownToRich } from "./rich-text-markdown";
import { obj } from "./rich-text-nodes";
import { richToPlain } from "./rich-text-plain";
import { richToHtml } from "./rich-text-render";
import { htmlToRich, looksLikeHtml } from "./rich-text-sanitise";
import type { RichNode } from "./schemas";

/**
 * A product's description as a string, the way the V1 API and CSV files carry it: HTML, or Markdown (which plain
 * text also is). The catalogue reads it into Ricos nodes and writes the nodes back as the simplest string that
 * reads back to them.
 */

/** A description as the V1 API and CSV files carry it (HTML, or Markdown which plain text is) -> Ricos nodes. */
export function descriptionToRich(description: string): { nodes: RichNode[] } {
  return looksLikeHtml(description) ? htmlToRich(description) : markdownToRich(description);
}

/** A description string (HTML or Markdown) as plain text. */
export function descriptionToPlain(description: string): string {
  return richToPlain(descriptionToRich(description).nodes);
}

/** Text that no Markdown or HTML reading changes: no markup characters, no line start that begins a block. */
const INERT = /^(?![ \t])(?!\d{1,9}[.)](\s|$))(?![\s\S]*www\.)[^\\`*_[\]<>&~|#=+\-:@\n\t]*(?<![ \t])$/;

/**
 * The description as the V1 API and CSV export give it: the plain text when the document is only plain paragraphs
 * that read back as the same document, else the document as HTML (Wix's V1 `description` is HTML).
 */
export function richToDescription(nodes: readonly RichNode[] | null | undefined): string {
  const list = nodes ?? [];
  const plainParagraphs = list.every(
    (n) =>
      n.type === "PARAGRAPH" &&
      (n.nodes ?? []).length === 1 &&
      n.nodes![0].type === "TEXT" &&
      (obj(n.nodes![0].textData).decorations as unknown[] | undefined)?.length === 0 &&
      typeof obj(n.nodes![0].textData).text === "string",
  );
  if (plainParagraphs) {
    const texts = list.map((n) => String(obj(n.nodes![0].textData).text));
    const text = texts.join("\n\n");
    if (texts.every((t) => INERT.test(t))) return text;
    if (texts.every((t) => t && !t.includes("\n")) && sameText(descriptionToRich(text).nodes, list)) return text;
  }
  return richToHtml(list);
}

/** Two documents of plain paragraphs hold the same paragraphs. */
function sameText(a: readonly RichNode[], b: readonly RichNode[]): boolean {
  const shape = (nodes: readonly RichNode[]) =>
    JSON.stringify(nodes.map((n) => [n.type, (n.nodes ?? []).map((t) => [t.type, obj(t.textData).text, obj(t.textData).decorations])]));
  return shape(a) === shape(b);
}
