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
  const reader = new HtmlReader();
  const parser = new Parser(
    {
      onopentag: (name, attribs) => reader.openTag(name, attribs),
      ontext: (data) => reader.text(data),
      onclosetag: (name) => reader.closeTag(name),
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.write(html.replace(/\r\n?/g, "\n"));
  parser.end();
  return { nodes: reader.finish() };
}

/** The decoration an inline element gives: <a> only with a safe link, so an unsafe one keeps just its text. */
function markDecoration(name: string, attribs: Record<string, string>): Decoration | null {
  if (name === "a") {
    const url = htmlLink(attribs.href);
    return url ? { type: "LINK", linkData: { link: { url, target: "BLANK", rel: { noreferrer: true } } } } : null;
  }
  return MARKS[name] === "BOLD"
    ? { type: "BOLD", fontWeightValue: 700 }
    : MARKS[name] === "ITALIC"
      ? { type: "ITALIC", italicData: true }
      : { type: "UNDERLINE" };
}

const isList = (n: RichNode) => n.type === "BULLETED_LIST" || n.type === "ORDERED_LIST";

/** One document being read: htmlparser2's tag and text events, in order, build the nodes under `root`. */
class HtmlReader {
  private readonly nextId = idMaker();
  private readonly root: RichNode = { type: "PARAGRAPH", nodes: [] };
  // Open containers (the document, lists, list items, quotes); inline text goes into `inline` in the top one.
  private readonly containers: RichNode[] = [this.root];
  private inline: RichNode | null = null;
  private preDepth = 0;
  private dropDepth = 0;
  private readonly marks: { tag: string; decoration: Decoration | null }[] = [];
  // Elements that were read as paragraph boundaries instead of containers (too deep), so their end closes nothing.
  private readonly flattened: string[] = [];
  // Lists and items the HTML did not have, made for a stray <li> or for a list straight inside a list.
  private readonly implicit = new Set<RichNode>();

  /** An opening tag: dropped content and preformatted text first, then inline marks, then blocks. */
  openTag(name: string, attribs: Record<string, string>): void {
    if (this.dropDepth || DROPPED.has(name)) {
      if (DROPPED.has(name)) this.dropDepth++;
      return;
    }
    if (this.preDepth) {
      if (name === "br") this.lineBreak();
      if (name === "pre") this.preDepth++;
      return;
    }
    if (name in MARKS || name === "a") this.marks.push({ tag: name, decoration: markDecoration(name, attribs) });
    else if (name === "br") this.lineBreak();
    else this.openBlock(name);
  }

  /** Text between tags (nothing inside a dropped element). */
  text(data: string): void {
    if (!this.dropDepth) this.addText(data);
  }

  /** A closing tag: ends the mark, block or container it opened. */
  closeTag(name: string): void {
    if (this.dropDepth) {
      if (DROPPED.has(name)) this.dropDepth--;
      return;
    }
    if (this.preDepth) {
      if (name === "pre" && --this.preDepth === 0) this.endInline();
      return;
    }
    if (name in MARKS || name === "a") {
      const at = this.marks.map((m) => m.tag).lastIndexOf(name);
      if (at >= 0) this.marks.splice(at, 1);
    } else if (name in HEADINGS) this.endInline();
    else if (name === "ul" || name === "ol") this.closeContainer(name, ["BULLETED_LIST", "ORDERED_LIST"]);
    else if (name === "li") this.closeContainer(name, ["LIST_ITEM"]);
    else if (name === "blockquote") this.closeContainer(name, ["BLOCKQUOTE"]);
    else if (BLOCKS.has(name)) this.endInline();
  }

  /** The document's nodes once the parser has ended, without empty lists and quotes. */
  finish(): RichNode[] {
    this.endInline();
    return this.root.nodes!.filter((n) => !isEmptyContainer(n));
  }

  private openBlock(name: string): void {
    const nextId = this.nextId;
    if (name in HEADINGS) this.startBlock({ type: "HEADING", id: nextId(), nodes: [], headingData: { level: HEADINGS[name] } });
    else if (name === "pre") {
      this.startBlock({ type: "CODE_BLOCK", id: nextId(), nodes: [], codeBlockData: {} });
      this.preDepth = 1;
    } else if (name === "hr") {
      this.endInline();
      this.leaveImplicitList();
      this.add(this.top(), { type: "DIVIDER", id: nextId(), nodes: [], dividerData: {} });
    } else if (name === "ul" || name === "ol")
      this.openContainer(name, {
        type: name === "ol" ? "ORDERED_LIST" : "BULLETED_LIST",
        id: nextId(),
        nodes: [],
        ...(name === "ol" ? { orderedListData: { indentation: 0 } } : { bulletedListData: { indentation: 0 } }),
      });
    else if (name === "li") this.openContainer(name, { type: "LIST_ITEM", id: nextId(), nodes: [] });
    else if (name === "blockquote") this.openContainer(name, { type: "BLOCKQUOTE", id: nextId(), nodes: [], blockquoteData: {} });
    else if (BLOCKS.has(name)) this.endInline();
  }

  private top(): RichNode {
    return this.containers[this.containers.length - 1];
  }

  private leaveImplicitList(): void {
    while (this.containers.length > 1 && this.implicit.has(this.top()) && isList(this.top())) this.containers.pop();
  }

  private add(parent: RichNode, node: RichNode): boolean {
    if (parent.nodes!.length >= MAX_CHILDREN) return false;
    parent.nodes!.push(node);
    return true;
  }

  /** Ends the open paragraph, heading or code block: trimmed, and placed in the top container if it holds text. */
  private endInline(): void {
    const block = this.inline;
    this.inline = null;
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
    this.leaveImplicitList();
    let parent = this.top();
    // Text straight inside a list belongs to an item of its own.
    if (isList(parent)) {
      const item: RichNode = { type: "LIST_ITEM", id: this.nextId(), nodes: [] };
      if (!this.add(parent, item)) return;
      parent = item;
    }
    this.add(parent, block);
  }

  private startBlock(node: RichNode): void {
    this.endInline();
    this.inline = node;
  }

  /** The open marks' decorations, innermost of each type, in a fixed order. */
  private decorations(): Decoration[] {
    const active = this.marks.map((m) => m.decoration).filter((d): d is Decoration => !!d);
    const order: Decoration["type"][] = ["BOLD", "ITALIC", "UNDERLINE", "LINK"];
    const out: Decoration[] = [];
    for (const type of order) {
      const d = [...active].reverse().find((a) => a.type === type);
      if (d) out.push(d);
    }
    return out;
  }

  private addText(raw: string): void {
    const block: RichNode = (this.inline ??= paragraph([], this.nextId));
    const code = block.type === "CODE_BLOCK";
    const decos = code ? [] : this.decorations();
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
  }

  private lineBreak(): void {
    const block: RichNode = (this.inline ??= paragraph([], this.nextId));
    const runs = block.nodes!;
    const last = runs[runs.length - 1]?.textData as { text: string; decorations: Decoration[] } | undefined;
    const decos = block.type === "CODE_BLOCK" ? [] : this.decorations();
    if (last && JSON.stringify(last.decorations) === JSON.stringify(decos)) last.text = `${last.text.replace(/ $/, "")}\n`;
    else if (runs.length < MAX_CHILDREN) runs.push({ type: "TEXT", id: "", nodes: [], textData: { text: "\n", decorations: decos } });
  }

  /** Opens a list, item or quote, adding the list or item the HTML left out; too deep, it is only a paragraph break. */
  private openContainer(tag: string, node: RichNode): void {
    this.endInline();
    if (node.type !== "LIST_ITEM") this.leaveImplicitList();
    if (this.containers.length > MAX_NESTING * 2) return void this.flattened.push(tag);
    let parent = this.top();
    if (node.type === "LIST_ITEM" && !isList(parent)) {
      const list: RichNode = { type: "BULLETED_LIST", id: this.nextId(), nodes: [], bulletedListData: { indentation: 0 } };
      if (!this.add(parent, list)) return void this.flattened.push(tag);
      this.implicit.add(list);
      this.containers.push(list);
      parent = list;
    } else if (node.type !== "LIST_ITEM" && isList(parent)) {
      const item: RichNode = { type: "LIST_ITEM", id: this.nextId(), nodes: [] };
      if (!this.add(parent, item)) return void this.flattened.push(tag);
      this.implicit.add(item);
      this.containers.push(item);
      parent = item;
    }
    if (!this.add(parent, node)) return void this.flattened.push(tag);
    this.containers.push(node);
  }

  private closeContainer(tag: string, types: string[]): void {
    this.endInline();
    const at = this.flattened.lastIndexOf(tag);
    if (at >= 0) return void this.flattened.splice(at, 1);
    for (let i = this.containers.length - 1; i > 0; i--) {
      if (types.includes(this.containers[i].type) && !this.implicit.has(this.containers[i])) {
        this.containers.length = i;
        while (this.containers.length > 1 && this.implicit.has(this.top()) && this.top().type === "LIST_ITEM") this.containers.pop();
        return;
      }
    }
  }
}

/** A list, item or quote left with nothing in it (an empty `<ul></ul>`). */
function isEmptyContainer(node: RichNode): boolean {
  if (node.type !== "BULLETED_LIST" && node.type !== "ORDERED_LIST" && node.type !== "LIST_ITEM" && node.type !== "BLOCKQUOTE") return false;
  node.nodes = (node.nodes ?? []).filter((n) => !isEmptyContainer(n));
  return node.nodes.length === 0;
}
