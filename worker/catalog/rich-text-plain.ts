import { MAX_DEPTH, obj } from "./rich-text-nodes";
import type { RichNode } from "./schemas";

/** Ricos -> plain text: the V3 plain description, what search reads, and one-line summaries. */

/** The text of a block's inline nodes (line breaks kept). */
function inlineText(nodes: readonly RichNode[] | undefined, depth: number): string {
  if (depth > MAX_DEPTH) return "";
  return (nodes ?? []).map((n) => (n.type === "TEXT" ? String(obj(n.textData).text ?? "") : inlineText(n.nodes, depth + 1))).join("");
}

/** A node's blocks of text: one per paragraph or heading, one per list (its items on lines of their own). */
function textBlocks(node: RichNode, depth: number): string[] {
  if (depth > MAX_DEPTH) return [];
  const kids = node.nodes ?? [];
  const lines = (s: string) =>
    s
      .split("\n")
      .map((l) => l.replace(/[ \t]+/g, " ").trim())
      .filter(Boolean)
      .join("\n");
  switch (node.type) {
    case "PARAGRAPH":
    case "HEADING":
    case "CODE_BLOCK":
    case "TEXT": {
      const t = lines(node.type === "TEXT" ? inlineText([node], depth) : inlineText(kids, depth));
      return t ? [t] : [];
    }
    case "BULLETED_LIST":
    case "ORDERED_LIST": {
      const items = kids.map((item) => (item.nodes ?? []).flatMap((c) => textBlocks(c, depth + 2)).join("\n")).filter(Boolean);
      return items.length ? [items.join("\n")] : [];
    }
    case "DIVIDER":
      return [];
    default:
      return kids.flatMap((c) => textBlocks(c, depth + 1));
  }
}

/**
 * The document as plain text: paragraphs and headings apart by a blank line, each list item on a line of its own.
 * This is the plain description (V3 `plainDescription`) and what search reads.
 */
export function richToPlain(nodes: readonly RichNode[] | null | undefined): string {
  return (nodes ?? [])
    .flatMap((n) => textBlocks(n, 0))
    .join("\n\n")
    .slice(0, 16_000);
}

/**
 * Plain text on one line, for a meta description or a summary: blocks end with a full stop unless they already end
 * in punctuation, and the lines of a block (list items) are joined with "; ".
 */
export function plainToLine(plain: string): string {
  const end = (s: string, mark: string) => (/[.!?…:;,]$/.test(s) ? `${s} ` : `${s}${mark} `);
  const blocks = plain
    .split(/\n\s*\n/)
    .map((b) =>
      b
        .split("\n")
        .map((l) => l.trim())
        .filter(Boolean),
    )
    .filter((b) => b.length);
  return blocks
    .map((lines, i) => {
      const joined = lines.map((l, j) => (j < lines.length - 1 ? end(l, ";") : l)).join("");
      return i < blocks.length - 1 ? end(joined, ".") : joined;
    })
    .join("")
    .replace(/\s+/g, " ")
    .trim();
}
