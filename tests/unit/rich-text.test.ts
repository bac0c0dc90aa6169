import { describe, expect, it } from "vitest";
import { descriptionToRich, richToDescription } from "#worker/catalog/rich-text";
import { markdownToRich, richToMarkdown, unsupportedNodes } from "#worker/catalog/rich-text-markdown";
import { plainToLine, richToPlain } from "#worker/catalog/rich-text-plain";
import { htmlToRich, looksLikeHtml } from "#worker/catalog/rich-text-sanitise";
import { richContentSchema } from "#worker/catalog/schemas";

const texts = (nodes: any[]): string[] => nodes.flatMap((n) => (n.type === "TEXT" ? [n.textData.text] : texts(n.nodes ?? [])));

describe("the console's Markdown description", () => {
  it("turns paragraphs, headings, lists, quotes and inline styles into Ricos nodes the API accepts", () => {
    const doc = markdownToRich(
      "Soft **organic** cotton, *pre-washed*.\n\n## Care\n\n- Wash cold\n- Dry flat\n\n1. One\n2. Two\n\n> Loved by [our customers](https://example.com/reviews).\n\n---",
    );
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
    const doc = markdownToRich("<script>alert(1)</script>\n\nA [trap](javascript:alert(1)) & <b>bold</b>");
    expect(JSON.stringify(doc)).not.toContain('"LINK"');
    expect(texts(doc.nodes).join("")).toContain("<script>alert(1)</script>");
    expect(texts(doc.nodes).join("")).toContain("& <b>bold</b>");
  });

  it("writes the nodes back as Markdown that parses to the same document", () => {
    const source =
      "Soft **organic** cotton & *pre-washed* [care](https://example.com/care).\n\n## Care\n\n- Wash cold\n- Dry *flat*\n\n> A quote\n\n```\ncode here\n```\n\n---\n\n1 star *isn't* a # heading";
    const once = markdownToRich(source);
    const again = markdownToRich(richToMarkdown(once.nodes));
    expect(again).toEqual(once);
  });

  it("names the node types Markdown cannot hold, so the editor can warn before dropping them", () => {
    expect(unsupportedNodes([{ type: "PARAGRAPH", nodes: [{ type: "IMAGE" }] }, { type: "TABLE" }])).toEqual(["IMAGE", "TABLE"]);
    expect(unsupportedNodes(markdownToRich("plain").nodes)).toEqual([]);
  });
});

describe("a description written as HTML", () => {
  const strip = (x: unknown) => JSON.parse(JSON.stringify(x, (k, v) => (k === "id" ? undefined : v)));
  const WIX = "<p>A tee.</p><ul><li>soft</li><li>organic</li></ul>";

  it("is read into the same rich-content nodes as Markdown, never kept as markup", () => {
    const doc = descriptionToRich(WIX);
    expect(richContentSchema.safeParse(doc).success).toBe(true);
    expect(strip(doc)).toEqual(strip(markdownToRich("A tee.\n\n- soft\n- organic")));
    expect(JSON.stringify(doc)).not.toContain("<");
  });

  it("keeps only the safe subset: script and style go with their content, links only to http(s) and mailto", () => {
    const doc = htmlToRich(
      '<h2>Care</h2><p onclick="x()">Wash <b>cold</b>, <i>dry</i> <u>flat</u>.<br>Iron &amp; fold.</p><script>alert(1)</script><style>p{color:red}</style>' +
        '<p><a href="javascript:alert(1)">trap</a> <a href="https://example.com/care">guide</a> <a href="mailto:help@example.com">mail</a> <a href="data:text/html,x">data</a></p>' +
        '<img src=x onerror="alert(2)"><iframe src="https://evil.example"></iframe><ol><li>One</li><li>Two</li></ol>',
    );
    const json = JSON.stringify(doc);
    expect(json).not.toMatch(/alert|color:red|onclick|onerror|evil|javascript|data:/);
    expect(doc.nodes.map((n) => n.type)).toEqual(["HEADING", "PARAGRAPH", "PARAGRAPH", "ORDERED_LIST"]);
    const runs = (doc.nodes[1].nodes as any[]).map((n) => [n.textData.text, n.textData.decorations.map((d: any) => d.type)]);
    expect(runs).toEqual([
      ["Wash ", []],
      ["cold", ["BOLD"]],
      [", ", []],
      ["dry", ["ITALIC"]],
      [" ", []],
      ["flat", ["UNDERLINE"]],
      [".\nIron & fold.", []],
    ]);
    const links = (doc.nodes[2].nodes as any[]).map((n) => [
      n.textData.text,
      n.textData.decorations.find((d: any) => d.type === "LINK")?.linkData.link.url ?? null,
    ]);
    expect(links).toEqual([
      ["trap ", null],
      ["guide", "https://example.com/care"],
      [" ", null],
      ["mail", "mailto:help@example.com"],
      [" data", null],
    ]);
  });

  it("gives plain text with paragraphs and list items apart, and one line for a meta description", () => {
    const plain = richToPlain(descriptionToRich(WIX).nodes);
    expect(plain).toBe("A tee.\n\nsoft\norganic");
    expect(plainToLine(plain)).toBe("A tee. soft; organic");
    expect(plainToLine("Built for trails\n\nLight and tough.")).toBe("Built for trails. Light and tough.");
  });

  it("is written back as HTML that reads as the same nodes; plain paragraphs stay plain text", () => {
    const doc = descriptionToRich(WIX);
    const html = richToDescription(doc.nodes);
    expect(html).toBe(WIX);
    expect(strip(descriptionToRich(html))).toEqual(strip(doc));
    expect(richToDescription(descriptionToRich("Soft cotton.\n\nMade to last.").nodes)).toBe("Soft cotton.\n\nMade to last.");
    // Text that would read differently as Markdown or HTML is written as HTML.
    expect(richToDescription([{ type: "PARAGRAPH", nodes: [{ type: "TEXT", textData: { text: "a <b>not bold</b> *b*", decorations: [] } }] }])).toBe(
      "<p>a &lt;b&gt;not bold&lt;/b&gt; *b*</p>",
    );
  });

  it("tells HTML from Markdown by its tags, so text with a < in it stays Markdown", () => {
    expect(looksLikeHtml(WIX)).toBe(true);
    expect(looksLikeHtml("Line one<br/>line two")).toBe(true);
    expect(looksLikeHtml("I <3 tees, 2 < 3 and x<y>z")).toBe(false);
    expect(texts(descriptionToRich("I <3 tees").nodes)).toEqual(["I <3 tees"]);
  });

  it("survives hostile nesting and unclosed tags", () => {
    const deep = htmlToRich(`${"<ul><li>".repeat(3000)}deep${"</li></ul>".repeat(10)}<p>after`);
    expect(richContentSchema.safeParse(deep).success).toBe(true);
    expect(texts(deep.nodes)).toEqual(["deep", "after"]);
    expect(texts(htmlToRich("<p><b>bold <i>both</p>plain").nodes)).toEqual(["bold ", "both", "plain"]);
  });
});
