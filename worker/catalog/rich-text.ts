import { marked, type Token, type Tokens } from "marked";
import { Parser } from "htmlparser2";
import type { RichNode } from "./schemas";

/**
 * The console edits a product's rich description (Ricos nodes, what the API stores) as Markdown in a textarea:
 * paragraphs, headings, bulleted and numbered lists, quotes, code, dividers, bold, italic and links. Markdown is
 * parsed by `marked`'s lexer (never rendered to HTML: the tokens become Ricos nodes, so no markup can get in), and
 * nodes are written back as Markdown for the next edit. Node types Markdown cannot express (images, embeds, tables…)
 * are reported by `unsupportedNodes`, so the editor can say that saving an edited text would drop them.
 */

interface Decoration {
  type: "BOLD" | "ITALIC" | "UNDERLINE" | "LINK";
  fontWeightValue?: number;
  italicData?: boolean;
  linkData?: { link: { url: string; target?: string; rel?: { noreferrer: boolean } } };
}

/** Ricos ids are unique within one document; a short counter is enough. */
function idMaker(): () => string {
  let n = 0;
  return () => `md${(++n).toString(36)}`;
}

const SAFE_URL = /^(https?:\/\/|mailto:|tel:|\/(?!\/))/i;

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

function paragraph(nodes: RichNode[], nextId: () => string): RichNode {
  return { type: "PARAGRAPH", id: nextId(), nodes, paragraphData: {} };
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

const obj = (v: unknown): Record<string, unknown> => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

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

// ---------------------------------------------------------------------------------------------------------------
// HTML -> Ricos
//
// A description written as HTML (what Wix Stores V1 sends, what its CSV export holds, what a headless site's admin
// posts) is read by htmlparser2's tokenizer (no DOM, no rendering) into the same nodes as the console's Markdown:
// paragraphs, headings, lists, quotes, preformatted text, dividers, bold, italic, underline, http(s)/mailto links and
// line breaks. Every other element gives only its text; script, style and other non-content elements give nothing.

/** Elements whose content is never text a shopper should read. */
const DROPPED = new Set([
  "script",
  "style",
  "template",
  "noscript",
  "iframe",
  "object",
  "embed",
  "svg",
  "math",
  "head",
  "title",
  "textarea",
  "select",
  "option",
  "canvas",
  "audio",
  "video",
]);
/** Elements that end the paragraph before them and start a new one (their text is kept). */
const BLOCKS = new Set([
  "p",
  "div",
  "section",
  "article",
  "header",
  "footer",
  "main",
  "aside",
  "nav",
  "figure",
  "figcaption",
  "address",
  "center",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "caption",
  "dl",
  "dt",
  "dd",
  "details",
  "summary",
  "form",
  "fieldset",
  "body",
  "html",
  "td",
  "th",
]);
const HEADINGS: Record<string, number> = { h1: 1, h2: 2, h3: 3, h4: 4, h5: 5, h6: 6 };
const MARKS: Record<string, Decoration["type"]> = { b: "BOLD", strong: "BOLD", i: "ITALIC", em: "ITALIC", u: "UNDERLINE", ins: "UNDERLINE" };
/** How deep lists and quotes may nest; deeper ones are read as paragraphs of the list item around them. */
const MAX_NESTING = 8;
/** The most child nodes one node may hold (what the API's schema accepts). */
const MAX_CHILDREN = 500;

/** A link target kept from HTML: an absolute http(s) or mailto URL, nothing else. */
function htmlLink(raw: string | undefined): string | null {
  const url = (raw ?? "").trim();
  if (!url || url.length > 2048 || !/^(https?:\/\/|mailto:)/i.test(url)) return null;
  try {
    new URL(url);
    return url;
  } catch {
    return null;
  }
}

/** The tags that make a description HTML rather than Markdown (a text like "I <3 tees" or "x<y>z" stays Markdown). */
const HTML_TAG =
  /<\/?(?:p|br|hr|ul|ol|li|strong|b|em|i|u|s|a|h[1-6]|div|span|blockquote|pre|code|table|thead|tbody|tr|td|th|img|script|style|iframe|section|article|font|small|sub|sup|strike|del|ins|mark|center|dl|dt|dd|figure|noscript|template|object|embed|svg|head|body|html|title|meta|link)(?:\s[^<>]*)?\/?>|<!--/i;

/** Whether a description string is HTML (else it is read as Markdown, which plain text also is). */
export function looksLikeHtml(text: string): boolean {
  return HTML_TAG.test(text);
}

/** An HTML description -> the Ricos document the API stores (only the safe subset listed above). */
export function htmlToRich(html: string): { nodes: RichNode[] } {
  const nextId = idMaker();
  const root: RichNode = { type: "PARAGRAPH", nodes: [] };
  // Open containers (the document, lists, list items, quotes); inline text goes into `inline` in the top one.
  const containers: RichNode[] = [root];
  let inline: RichNode | null = null;
  let preDepth = 0;
  let dropDepth = 0;
  const marks: { tag: string; decoration: Decoration | null }[] = [];
  // Elements that were read as paragraph boundaries instead of containers (too deep), so their end closes nothing.
  const flattened: string[] = [];

  // Lists and items the HTML did not have, made for a stray <li> or for a list straight inside a list.
  const implicit = new Set<RichNode>();
  const top = () => containers[containers.length - 1];
  const isList = (n: RichNode) => n.type === "BULLETED_LIST" || n.type === "ORDERED_LIST";
  const leaveImplicitList = () => {
    while (containers.length > 1 && implicit.has(top()) && isList(top())) containers.pop();
  };
  const add = (parent: RichNode, node: RichNode): boolean => {
    if (parent.nodes!.length >= MAX_CHILDREN) return false;
    parent.nodes!.push(node);
    return true;
  };
  const endInline = () => {
    const block = inline;
    inline = null;
    if (!block) return;
    const runs = block.nodes!;
    if (block.type !== "CODE_BLOCK") {
      const first = runs[0]?.textData as { text: string } | undefined;
      const last = runs[runs.length - 1]?.textData as { text: string } | undefined;
      if (first) first.text = first.text.replace(/^[ \n]+/, "");
      if (last) last.text = last.text.replace(/[ \n]+$/, "");
      block.nodes = runs.filter((n) => (n.textData as { text: string }).text !== "");
    }
    if (!block.nodes!.some((n) => (n.textData as { text: string }).text.trim())) return;
    leaveImplicitList();
    let parent = top();
    // Text straight inside a list belongs to an item of its own.
    if (isList(parent)) {
      const item: RichNode = { type: "LIST_ITEM", id: nextId(), nodes: [] };
      if (!add(parent, item)) return;
      parent = item;
    }
    add(parent, block);
  };
  const startBlock = (node: RichNode) => {
    endInline();
    inline = node;
  };
  const decorations = (): Decoration[] => {
    const active = marks.map((m) => m.decoration).filter((d): d is Decoration => !!d);
    const order: Decoration["type"][] = ["BOLD", "ITALIC", "UNDERLINE", "LINK"];
    const out: Decoration[] = [];
    for (const type of order) {
      const d = [...active].reverse().find((a) => a.type === type);
      if (d) out.push(d);
    }
    return out;
  };
  const text = (raw: string) => {
    const block: RichNode = (inline ??= paragraph([], nextId));
    const code = block.type === "CODE_BLOCK";
    const decos = code ? [] : decorations();
    const runs = block.nodes!;
    const last = runs[runs.length - 1]?.textData as { text: string; decorations: Decoration[] } | undefined;
    let t = raw;
    // HTML collapses white space; a space after a space or a line break is not shown.
    if (!code) {
      t = t.replace(/[ \t\n\r\f]+/g, " ");
      if (t.startsWith(" ") && (!last || /[ \n]$/.test(last.text))) t = t.slice(1);
    }
    if (!t) return;
    if (last && JSON.stringify(last.decorations) === JSON.stringify(decos)) last.text += t;
    else if (runs.length < MAX_CHILDREN) runs.push({ type: "TEXT", id: "", nodes: [], textData: { text: t, decorations: decos } });
  };
  const lineBreak = () => {
    const block: RichNode = (inline ??= paragraph([], nextId));
    const runs = block.nodes!;
    const last = runs[runs.length - 1]?.textData as { text: string; decorations: Decoration[] } | undefined;
    const decos = block.type === "CODE_BLOCK" ? [] : decorations();
    if (last && JSON.stringify(last.decorations) === JSON.stringify(decos)) last.text = `${last.text.replace(/ $/, "")}\n`;
    else if (runs.length < MAX_CHILDREN) runs.push({ type: "TEXT", id: "", nodes: [], textData: { text: "\n", decorations: decos } });
  };
  const openContainer = (tag: string, node: RichNode) => {
    endInline();
    if (node.type !== "LIST_ITEM") leaveImplicitList();
    if (containers.length > MAX_NESTING * 2) return void flattened.push(tag);
    let parent = top();
    if (node.type === "LIST_ITEM" && !isList(parent)) {
      const list: RichNode = { type: "BULLETED_LIST", id: nextId(), nodes: [], bulletedListData: { indentation: 0 } };
      if (!add(parent, list)) return void flattened.push(tag);
      implicit.add(list);
      containers.push(list);
      parent = list;
    } else if (node.type !== "LIST_ITEM" && isList(parent)) {
      const item: RichNode = { type: "LIST_ITEM", id: nextId(), nodes: [] };
      if (!add(parent, item)) return void flattened.push(tag);
      implicit.add(item);
      containers.push(item);
      parent = item;
    }
    if (!add(parent, node)) return void flattened.push(tag);
    containers.push(node);
  };
  const closeContainer = (tag: string, types: string[]) => {
    endInline();
    const at = flattened.lastIndexOf(tag);
    if (at >= 0) return void flattened.splice(at, 1);
    for (let i = containers.length - 1; i > 0; i--) {
      if (types.includes(containers[i].type) && !implicit.has(containers[i])) {
        containers.length = i;
        while (containers.length > 1 && implicit.has(top()) && top().type === "LIST_ITEM") containers.pop();
        return;
      }
    }
  };

  const parser = new Parser(
    {
      onopentag(name, attribs) {
        if (dropDepth || DROPPED.has(name)) {
          if (DROPPED.has(name)) dropDepth++;
          return;
        }
        if (preDepth) {
          if (name === "br") lineBreak();
          if (name === "pre") preDepth++;
          return;
        }
        if (name in MARKS)
          marks.push({
            tag: name,
            decoration:
              MARKS[name] === "BOLD"
                ? { type: "BOLD", fontWeightValue: 700 }
                : MARKS[name] === "ITALIC"
                  ? { type: "ITALIC", italicData: true }
                  : { type: "UNDERLINE" },
          });
        else if (name === "a") {
          const url = htmlLink(attribs.href);
          marks.push({
            tag: "a",
            decoration: url ? { type: "LINK", linkData: { link: { url, target: "BLANK", rel: { noreferrer: true } } } } : null,
          });
        } else if (name === "br") lineBreak();
        else if (name in HEADINGS) startBlock({ type: "HEADING", id: nextId(), nodes: [], headingData: { level: HEADINGS[name] } });
        else if (name === "pre") {
          startBlock({ type: "CODE_BLOCK", id: nextId(), nodes: [], codeBlockData: {} });
          preDepth = 1;
        } else if (name === "hr") {
          endInline();
          leaveImplicitList();
          add(top(), { type: "DIVIDER", id: nextId(), nodes: [], dividerData: {} });
        } else if (name === "ul" || name === "ol")
          openContainer(name, {
            type: name === "ol" ? "ORDERED_LIST" : "BULLETED_LIST",
            id: nextId(),
            nodes: [],
            ...(name === "ol" ? { orderedListData: { indentation: 0 } } : { bulletedListData: { indentation: 0 } }),
          });
        else if (name === "li") openContainer(name, { type: "LIST_ITEM", id: nextId(), nodes: [] });
        else if (name === "blockquote") openContainer(name, { type: "BLOCKQUOTE", id: nextId(), nodes: [], blockquoteData: {} });
        else if (BLOCKS.has(name)) endInline();
      },
      ontext(data) {
        if (!dropDepth) text(data);
      },
      onclosetag(name) {
        if (dropDepth) {
          if (DROPPED.has(name)) dropDepth--;
          return;
        }
        if (preDepth) {
          if (name === "pre" && --preDepth === 0) endInline();
          return;
        }
        if (name in MARKS || name === "a") {
          const at = marks.map((m) => m.tag).lastIndexOf(name);
          if (at >= 0) marks.splice(at, 1);
        } else if (name in HEADINGS) endInline();
        else if (name === "ul" || name === "ol") closeContainer(name, ["BULLETED_LIST", "ORDERED_LIST"]);
        else if (name === "li") closeContainer(name, ["LIST_ITEM"]);
        else if (name === "blockquote") closeContainer(name, ["BLOCKQUOTE"]);
        else if (BLOCKS.has(name)) endInline();
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html.replace(/\r\n?/g, "\n"));
  parser.end();
  endInline();
  return { nodes: root.nodes!.filter((n) => !isEmptyContainer(n)) };
}

/** A list, item or quote left with nothing in it (an empty `<ul></ul>`). */
function isEmptyContainer(node: RichNode): boolean {
  if (node.type !== "BULLETED_LIST" && node.type !== "ORDERED_LIST" && node.type !== "LIST_ITEM" && node.type !== "BLOCKQUOTE") return false;
  node.nodes = (node.nodes ?? []).filter((n) => !isEmptyContainer(n));
  return node.nodes.length === 0;
}

/** A description as the V1 API and CSV files carry it (HTML, or Markdown which plain text is) -> Ricos nodes. */
export function descriptionToRich(description: string): { nodes: RichNode[] } {
  return looksLikeHtml(description) ? htmlToRich(description) : markdownToRich(description);
}

// ---------------------------------------------------------------------------------------------------------------
// Ricos -> HTML and plain text

const escapeHtml = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
/** Deeper than this, nodes are left out (the storefront's renderer draws no deeper either). */
const MAX_DEPTH = 20;
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

/** A description string (HTML or Markdown) as plain text. */
export function descriptionToPlain(description: string): string {
  return richToPlain(descriptionToRich(description).nodes);
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
