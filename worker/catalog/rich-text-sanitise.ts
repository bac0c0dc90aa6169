import { Parser } from "htmlparser2";
import { type Decoration, htmlLink, idMaker, paragraph } from "./rich-text-nodes";
import type { RichNode } from "./schemas";

/**
 * A description written as HTML (what Wix Stores V1 sends, what its CSV export holds, what a headless site's admin
 * posts) is read by htmlparser2's tokenizer (no DOM, no rendering) into the same nodes as the console's Markdown:
 * paragraphs, headings, lists, quotes, preformatted text, dividers, bold, italic, underline, http(s)/mailto links and
 * line breaks. Every other element gives only its text; script, style and other non-content elements give nothing.
 */

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
