import { marked, type Token, type Tokens } from "marked";
import { type Decoration, idMaker, obj, paragraph, SAFE_URL } from "./rich-text-nodes";
import type { RichNode } from "./schemas";

/**
 * The console edits a product's rich description (Ricos nodes, what the API stores) as Markdown in a textarea:
 * paragraphs, headings, bulleted and numbered lists, quotes, code, dividers, bold, italic and links. Markdown is
 * parsed by `marked`'s lexer (never rendered to HTML: the tokens become Ricos nodes, so no markup can get in), and
 * nodes are written back as Markdown for the next edit. Node types Markdown cannot express (images, embeds, tables…)
 * are reported by `unsupportedNodes`, so the editor can say that saving an edited text would drop them.
 */

// ---------------------------------------------------------------------------------------------------------------
// Markdown -> Ricos

/** Inline tokens (text, bold, italic, links, code spans, line breaks) as TEXT nodes with decorations. */
function inlineNodes(tokens: Token[] | undefined, decorations: Decoration[], nextId: () => string): RichNode[] {
  const out: RichNode[] = [];
  const text = (t: string, d: Decoration[]) => {
    if (!t) return;
    // Adjacent runs with the same decorations become one node.
    const last = out[out.length - 1];
    const lastData = last?.textData as { text: string; decorations: Decoration[] } | undefined;
    if (lastData && JSON.stringify(lastData.decorations) === JSON.stringify(d)) lastData.text += t;
    else out.push({ type: "TEXT", id: "", nodes: [], textData: { text: t, decorations: d } });
  };
  for (const token of tokens ?? []) {
    switch (token.type) {
      case "strong":
        out.push(...inlineNodes((token as Tokens.Strong).tokens, [...decorations, { type: "BOLD", fontWeightValue: 700 }], nextId));
        break;
      case "em":
        out.push(...inlineNodes((token as Tokens.Em).tokens, [...decorations, { type: "ITALIC", italicData: true }], nextId));
        break;
      case "link": {
        const link = token as Tokens.Link;
        const url = link.href.trim();
        const withLink: Decoration[] = SAFE_URL.test(url)
          ? [...decorations, { type: "LINK", linkData: { link: { url, target: "BLANK", rel: { noreferrer: true } } } }]
          : decorations;
        out.push(...inlineNodes(link.tokens, withLink, nextId));
        break;
      }
      case "br":
        text("\n", decorations);
        break;
      case "codespan":
        text((token as Tokens.Codespan).text, decorations);
        break;
      case "text": {
        const t = token as Tokens.Text;
        if (t.tokens?.length) out.push(...inlineNodes(t.tokens, decorations, nextId));
        else text(decodeEntities(t.text), decorations);
        break;
      }
      case "escape":
        text((token as Tokens.Escape).text, decorations);
        break;
      default:
        // Inline HTML, images and anything else: kept as the text that was typed, never as markup.
        text(decodeEntities("text" in token && typeof token.text === "string" ? token.text : token.raw), decorations);
    }
  }
  // Merging may have joined nodes after a nested call returned; ids are filled last.
  return mergeRuns(out);
}

function mergeRuns(nodes: RichNode[]): RichNode[] {
  const out: RichNode[] = [];
  for (const n of nodes) {
    const prev = out[out.length - 1];
    const a = prev?.textData as { text: string; decorations: Decoration[] } | undefined;
    const b = n.textData as { text: string; decorations: Decoration[] } | undefined;
    if (a && b && JSON.stringify(a.decorations) === JSON.stringify(b.decorations)) a.text += b.text;
    else out.push(n);
  }
  return out;
}

/** marked keeps HTML entities in text (it escapes for HTML output); the nodes hold the characters themselves. */
function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: "&", lt: "<", gt: ">", quot: '"', "#39": "'" })[e] ?? _);
}

function blockNodes(tokens: Token[], nextId: () => string): RichNode[] {
  const out: RichNode[] = [];
  for (const token of tokens) {
    switch (token.type) {
      case "space":
        break;
      case "paragraph":
        out.push(paragraph(inlineNodes((token as Tokens.Paragraph).tokens, [], nextId), nextId));
        break;
      case "text":
        // Loose text inside list items.
        out.push(
          paragraph(
            inlineNodes(
              (token as Tokens.Text).tokens ?? [{ type: "text", raw: token.raw, text: (token as Tokens.Text).text } as Tokens.Text],
              [],
              nextId,
            ),
            nextId,
          ),
        );
        break;
      case "heading": {
        const h = token as Tokens.Heading;
        out.push({
          type: "HEADING",
          id: nextId(),
          nodes: inlineNodes(h.tokens, [], nextId),
          headingData: { level: Math.min(Math.max(h.depth, 2), 6) },
        });
        break;
      }
      case "list": {
        const list = token as Tokens.List;
        out.push({
          type: list.ordered ? "ORDERED_LIST" : "BULLETED_LIST",
          id: nextId(),
          nodes: list.items.map((item) => ({ type: "LIST_ITEM", id: nextId(), nodes: blockNodes(item.tokens, nextId) })),
          ...(list.ordered ? { orderedListData: { indentation: 0 } } : { bulletedListData: { indentation: 0 } }),
        });
        break;
      }
      case "blockquote":
        out.push({ type: "BLOCKQUOTE", id: nextId(), nodes: blockNodes((token as Tokens.Blockquote).tokens, nextId), blockquoteData: {} });
        break;
      case "code":
        out.push({
          type: "CODE_BLOCK",
          id: nextId(),
          nodes: [{ type: "TEXT", id: "", nodes: [], textData: { text: (token as Tokens.Code).text, decorations: [] } }],
          codeBlockData: {},
        });
        break;
      case "hr":
        out.push({ type: "DIVIDER", id: nextId(), nodes: [], dividerData: {} });
        break;
      default:
        // HTML blocks, tables and the rest: their source as a plain paragraph.
        if (token.raw.trim())
          out.push(paragraph([{ type: "TEXT", id: "", nodes: [], textData: { text: token.raw.trim(), decorations: [] } }], nextId));
    }
  }
  return out;
}

/** Markdown as typed in the editor -> the Ricos document the API stores. */
export function markdownToRich(markdown: string): { nodes: RichNode[] } {
  const tokens = marked.lexer(markdown.replace(/\r\n?/g, "\n"), { gfm: true, breaks: false });
  return { nodes: blockNodes(tokens, idMaker()).slice(0, 500) };
}

// ---------------------------------------------------------------------------------------------------------------
// Ricos -> Markdown

const EDITABLE = new Set(["PARAGRAPH", "TEXT", "HEADING", "BULLETED_LIST", "ORDERED_LIST", "LIST_ITEM", "BLOCKQUOTE", "CODE_BLOCK", "DIVIDER"]);

/** Characters that would otherwise start Markdown syntax inside a run of text. */
function escapeText(text: string): string {
  return text.replace(/([\\`*_[\]<>])/g, "\\$1");
}

function inlineMarkdown(nodes: RichNode[] | undefined): string {
  return (nodes ?? [])
    .map((n) => {
      if (n.type !== "TEXT") return inlineMarkdown(n.nodes);
      const data = obj(n.textData);
      let text = escapeText(typeof data.text === "string" ? data.text : "");
      if (!text.trim()) return text;
      const decorations = Array.isArray(data.decorations) ? data.decorations.map(obj) : [];
      if (decorations.some((d) => d.type === "ITALIC")) text = `*${text}*`;
      if (decorations.some((d) => d.type === "BOLD")) text = `**${text}**`;
      const url = obj(obj(decorations.find((d) => d.type === "LINK")?.linkData).link).url;
      if (typeof url === "string" && SAFE_URL.test(url)) text = `[${text}](${url.replace(/[()\s]/g, encodeURIComponent)})`;
      return text.replace(/\n/g, "  \n");
    })
    .join("");
}

function blockMarkdown(node: RichNode, depth = 0): string {
  const kids = node.nodes ?? [];
  switch (node.type) {
    case "PARAGRAPH":
      return inlineMarkdown(kids).replace(/^(\s*)(#|>|-|\+|\d+\.)/, "$1\\$2");
    case "HEADING":
      return `${"#".repeat(Math.min(Math.max(Number(obj(node.headingData).level) || 2, 2), 6))} ${inlineMarkdown(kids)}`;
    case "BULLETED_LIST":
    case "ORDERED_LIST":
      return kids
        .map((item, i) => {
          const marker = node.type === "ORDERED_LIST" ? `${i + 1}. ` : "- ";
          const body = (item.nodes ?? []).map((c) => blockMarkdown(c, depth + 1)).join("\n");
          return marker + body.replace(/\n/g, `\n${" ".repeat(marker.length)}`);
        })
        .join("\n");
    case "BLOCKQUOTE":
      return kids
        .map((c) => blockMarkdown(c, depth + 1))
        .join("\n\n")
        .replace(/^/gm, "> ");
    case "CODE_BLOCK":
      return `\`\`\`\n${kids.map((c) => String(obj(c.textData).text ?? "")).join("")}\n\`\`\``;
    case "DIVIDER":
      return "---";
    case "TEXT":
      return inlineMarkdown([node]);
    default:
      return inlineMarkdown(kids);
  }
}

/** The stored Ricos document as Markdown for the editor's textarea. */
export function richToMarkdown(nodes: readonly RichNode[] | null | undefined): string {
  return (nodes ?? [])
    .map((n) => blockMarkdown(n))
    .filter((s) => s.trim())
    .join("\n\n");
}

/** The node types in a document that Markdown cannot express (an edit from the console would drop them). */
export function unsupportedNodes(nodes: readonly RichNode[] | null | undefined): string[] {
  const found = new Set<string>();
  const walk = (list: readonly RichNode[] | undefined) => {
    for (const n of list ?? []) {
      if (!EDITABLE.has(n.type)) found.add(n.type);
      walk(n.nodes);
    }
  };
  walk(nodes ?? []);
  return [...found].sort();
}
