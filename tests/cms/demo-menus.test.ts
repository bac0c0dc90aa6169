import { describe, expect, it } from "vitest";
import { queryCollectionsWith } from "#worker/catalog";
import { menuLinksOf, menuLinksRead } from "#worker/cms";
import { getQuery, merchant, serviceCtx } from "../helpers";

/** The demo shop's menus: the header links the main collections and two pages; the template's menus list pages. */
describe("the demo shop's menus", () => {
  it("the header links the main collections, then the pages; the template's header menu still reads its pages", async () => {
    const loaded = await merchant("POST", "/api/v1/demo-catalogue");
    expect(loaded.status, JSON.stringify(loaded.body)).toBe(200);
    const { ctx } = serviceCtx({ kind: "anonymous" });
    const slugs = ["header-menu", "footer-menu"];
    const [, [rows]] = await queryCollectionsWith(ctx, { paging: { limit: 1 } }, menuLinksRead(ctx.db, slugs));
    const menus = menuLinksOf(rows, slugs);
    expect(menus["header-menu"]).toEqual([
      { title: "T-shirts", href: "/collections/t-shirts" },
      { title: "Shoes", href: "/collections/shoes" },
      { title: "Home", href: "/collections/home" },
      { title: "Coffee & tea", href: "/collections/coffee" },
      { title: "About", href: "/pages/about" },
      { title: "Shipping and returns", href: "/pages/shipping-and-returns" },
    ]);
    expect(menus["footer-menu"].map((l) => l.href)).toEqual(["/pages/about", "/pages/shipping-and-returns", "/pages/privacy", "/pages/terms"]);
    const template = await getQuery("/wix-data/v2/items/query", {
      dataCollectionId: "Menus",
      query: { filter: { slug: "next-js-frontend-header-menu" } },
      includeReferences: [{ field: "pages" }],
    });
    expect(template.body.dataItems[0].data.pages.map((p: { slug: string }) => p.slug)).toEqual(["about", "shipping-and-returns"]);
  });
});
