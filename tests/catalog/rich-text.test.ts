import { describe, expect, it } from "vitest";
import { markdownToRich, richToMarkdown, unsupportedNodes } from "../../worker/catalog/rich-text";
import { richContentSchema } from "../../worker/catalog/schemas";

const texts = (nodes: any[]): string[] => nodes.flatMap((n) => (n.type === "TEXT" ? [n.textData.text] : texts(n.nodes ?? [])));

describe("the console's Markdown description", () => {
  it("turns paragraphs, headings, lists, quotes and inline styles into Ricos nodes the API accepts", () => {
    const doc = markdownToRich("Soft **organic** cotton, *pre-washed*.\n\n## Care\n\n- Wash cold\n- Dry flat\n\n1. One\n2. Two\n\n> Loved by [our customers](https://example.com/reviews).\n\n---");
    expect(richContentSchema.safeParse(doc).success).toBe(true);
    expect(doc.nodes.map((n) => n.type)).toEqual(["PARAGRAPH", "HEADING", "BULLETED_LIST", "ORDERED_LIST", "BLOCKQUOTE", "DIVIDER"]);
    const first = doc.nodes[0].nodes as any[];
    expect(first.map((n) => [n.textData.text, n.textData.decorations.map((d: any) => d.type)])).toEqual([
      ["Soft ", []],
      ["organic", ["BOLD"]],
      [" cotton, ", []],
      ["pre-washed", ["ITALIC"]],
      [".", []],
    ]);
    expect((doc.nodes[1] as any).headingData.level).toBe(2);
    expect(texts(doc.nodes[2].nodes!)).toEqual(["Wash cold", "Dry flat"]);
    const link = texts(doc.nodes[4].nodes!);
    expect(link).toEqual(["Loved by ", "our customers", "."]);
  });

  it("never lets markup or unsafe links through: HTML stays text, javascript: links lose their link", () => {
    const doc = markdownToRich('<script>alert(1)</script>\n\nA [trap](javascript:alert(1)) & <b>bold</b>');
    expect(JSON.stringify(doc)).not.toContain('"LINK"');
    expect(texts(doc.nodes).join("")).toContain("<script>alert(1)</script>");
    expect(texts(doc.nodes).join("")).toContain("& <b>bold</b>");
  });

  it("writes the nodes back as Markdown that parses to the same document", () => {
    const source = "Soft **organic** cotton & *pre-washed* [care](https://example.com/care).\n\n## Care\n\n- Wash cold\n- Dry *flat*\n\n> A quote\n\n```\ncode here\n```\n\n---\n\n1 star *isn't* a # heading";
    const once = markdownToRich(source);
    const again = markdownToRich(richToMarkdown(once.nodes));
    expect(again).toEqual(once);
  });

  it("names the node types Markdown cannot hold, so the editor can warn before dropping them", () => {
    expect(unsupportedNodes([{ type: "PARAGRAPH", nodes: [{ type: "IMAGE" }] }, { type: "TABLE" }])).toEqual(["IMAGE", "TABLE"]);
    expect(unsupportedNodes(markdownToRich("plain").nodes)).toEqual([]);
  });
});
