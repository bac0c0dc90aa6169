import { htmlLink, MAX_DEPTH, obj } from "./rich-text-nodes";
import type { RichNode } from "./schemas";

/** Ricos -> HTML: the safe subset only, written so that rich-text-sanitise.ts reads it back to the same nodes. */

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const CONTAINERS = new Set([
  "LAYOUT",
  "LAYOUT_CELL",
  "COLLAPSIBLE_LIST",
  "COLLAPSIBLE_ITEM",
  "COLLAPSIBLE_ITEM_TITLE",
  "COLLAPSIBLE_ITEM_BODY",
  "CAPTION",
  "TABLE",
  "TABLE_ROW",
  "TABLE_CELL",
]);

function inlineHtml(nodes: readonly RichNode[] | undefined, depth: number): string {
  if (depth > MAX_DEPTH) return "";
  return (nodes ?? [])
    .map((n) => {
      if (n.type !== "TEXT") return inlineHtml(n.nodes, depth + 1);
      const data = obj(n.textData);
      let html = escapeHtml(typeof data.text === "string" ? data.text : "").replace(/\n/g, "<br>");
      if (!html) return "";
      const decorations = Array.isArray(data.decorations) ? data.decorations.map(obj) : [];
      if (decorations.some((d) => d.type === "UNDERLINE")) html = `<u>${html}</u>`;
      if (decorations.some((d) => d.type === "ITALIC")) html = `<em>${html}</em>`;
      if (decorations.some((d) => d.type === "BOLD")) html = `<strong>${html}</strong>`;
      const url = htmlLink(obj(obj(decorations.find((d) => d.type === "LINK")?.linkData).link).url as string | undefined);
      if (url) html = `<a href="${escapeHtml(url)}" target="_blank" rel="noopener noreferrer">${html}</a>`;
      return html;
    })
    .join("");
}

function blockHtml(node: RichNode, depth: number): string {
  if (depth > MAX_DEPTH) return "";
  const kids = node.nodes ?? [];
  const blocks = () => kids.map((c) => blockHtml(c, depth + 1)).join("");
  switch (node.type) {
    case "PARAGRAPH": {
      const inner = inlineHtml(kids, depth);
      return inner ? `<p>${inner}</p>` : "";
    }
    case "HEADING": {
      const level = Math.min(Math.max(Number(obj(node.headingData).level) || 2, 1), 6);
      return `<h${level}>${inlineHtml(kids, depth)}</h${level}>`;
    }
    case "BULLETED_LIST":
    case "ORDERED_LIST": {
      const tag = node.type === "ORDERED_LIST" ? "ol" : "ul";
      const items = kids.map((item) => {
        const inner = item.nodes ?? [];
        // An item that holds one paragraph is written as its text, as HTML editors write it.
        const body =
          inner.length === 1 && inner[0].type === "PARAGRAPH"
            ? inlineHtml(inner[0].nodes, depth + 2)
            : inner.map((c) => blockHtml(c, depth + 2)).join("");
        return `<li>${body}</li>`;
      });
      return `<${tag}>${items.join("")}</${tag}>`;
    }
    case "BLOCKQUOTE":
      return `<blockquote>${blocks()}</blockquote>`;
    case "CODE_BLOCK":
      return `<pre><code>${escapeHtml(kids.map((c) => String(obj(c.textData).text ?? "")).join(""))}</code></pre>`;
    case "DIVIDER":
      return "<hr>";
    case "TEXT":
      return `<p>${inlineHtml([node], depth)}</p>`;
    default:
      return CONTAINERS.has(node.type) ? blocks() : "";
  }
}

/** The stored Ricos document as HTML (the safe subset only: what htmlToRich reads back to the same nodes). */
export function richToHtml(nodes: readonly RichNode[] | null | undefined): string {
  return (nodes ?? []).map((n) => blockHtml(n, 0)).join("");
}
