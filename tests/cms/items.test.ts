import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { catalogVersion } from "#worker/catalog/cache";
import { queryCollectionsWith } from "#worker/catalog";
import { menuLinksOf, menuLinksRead } from "#worker/cms";
import { api, getQuery, merchant, OWNER_KEY, outboxRows, serviceCtx, staffWith, unique } from "../helpers";

/**
 * The CMS's Wix Data items API (/wix-data/v2/items): the built-in Menus and Pages collections, the query in both
 * encodings with filters, sort, paging and references inline, get, the writes (cms.write only), WDE0025 for a
 * collection that does not exist, and bad input refused with nothing written.
 */

const insert = (dataCollectionId: string, data: Record<string, unknown>, key = OWNER_KEY) =>
  api("POST", "/wix-data/v2/items", { key, body: { dataCollectionId, dataItem: { data } } });

const query = (payload: Record<string, unknown>) => api("POST", "/wix-data/v2/items/query", { body: payload });

const cmsRows = async () => (await env.DB.prepare("SELECT id, slug, title, data, updated_date FROM cms_items ORDER BY id").all()).results;

async function visitorToken(): Promise<string> {
  const res = await api("POST", "/oauth2/token", { body: { clientId: "test-client-id", grantType: "anonymous" } });
  return res.body.access_token;
}

const tag = unique();
const pageIds: Record<string, string> = {};
let menuId = "";

beforeAll(async () => {
  for (const [slug, title, body] of [
    [`about-${tag}`, "About us", "We are a **small** shop."],
    [`shipping-${tag}`, "Shipping and returns", "<p>Free over $75.</p>"],
    [`privacy-${tag}`, "Privacy", "We never sell your data."],
  ]) {
    const res = await insert("Pages", { slug, title, body, seoDescription: `${title} at the shop` });
    expect(res.status).toBe(200);
    pageIds[slug] = res.body.dataItem.id;
  }
  const menu = await insert("Menus", { slug: `header-${tag}`, title: "Header", pages: [pageIds[`shipping-${tag}`], pageIds[`about-${tag}`]] });
  expect(menu.status).toBe(200);
  menuId = menu.body.dataItem.id;
});

describe("Wix Data items: reads", () => {
  it("answers the template's GET .r menu query with the menu's pages inline, in the menu's order", async () => {
    const res = await getQuery("/wix-data/v2/items/query", {
      dataCollectionId: "Menus",
      query: { fields: [], filter: { slug: `header-${tag}` }, sort: [] },
      includeReferences: [{ field: "pages" }],
    });
    expect(res.status).toBe(200);
    expect(res.body.pagingMetadata).toMatchObject({ count: 1, offset: 0, total: 1 });
    const [menu] = res.body.dataItems;
    expect(menu).toMatchObject({ id: menuId, dataCollectionId: "Menus", data: { _id: menuId, slug: `header-${tag}`, title: "Header" } });
    expect(menu.data.pages.map((p: { title: string; slug: string }) => [p.title, p.slug])).toEqual([
      ["Shipping and returns", `shipping-${tag}`],
      ["About us", `about-${tag}`],
    ]);
    expect(menu.data._createdDate.$date).toMatch(/^\d{4}-\d\d-\d\dT/);
  });

  it("answers the template's page query by slug with the rich content as HTML, for a visitor's token too", async () => {
    const payload = { dataCollectionId: "Pages", query: { filter: { slug: `about-${tag}` } } };
    for (const key of [undefined, await visitorToken()]) {
      const res = await getQuery("/wix-data/v2/items/query", payload, key);
      expect(res.status).toBe(200);
      const [page] = res.body.dataItems;
      expect(page.data).toMatchObject({ title: "About us", slug: `about-${tag}`, seoDescription: "About us at the shop" });
      expect(page.data.body).toContain("<strong>small</strong>");
      expect(page.data.content.nodes[0].type).toBe("PARAGRAPH");
    }
  });

  it("filters with $eq, $ne, $in, $hasSome, $contains, $startsWith, $and and $or, and sorts", async () => {
    const titles = async (filter: unknown, sort: unknown = [{ fieldName: "title", order: "ASC" }]) => {
      const res = await query({ dataCollectionId: "Pages", query: { filter: { $and: [{ slug: { $contains: tag } }, filter] }, sort } });
      expect(res.status).toBe(200);
      return res.body.dataItems.map((i: { data: { title: string } }) => i.data.title);
    };
    expect(await titles({})).toEqual(["About us", "Privacy", "Shipping and returns"]);
    expect(await titles({}, [{ fieldName: "title", order: "DESC" }])).toEqual(["Shipping and returns", "Privacy", "About us"]);
    expect(await titles({ title: { $eq: "Privacy" } })).toEqual(["Privacy"]);
    expect(await titles({ title: { $ne: "Privacy" } })).toEqual(["About us", "Shipping and returns"]);
    expect(await titles({ slug: { $in: [`about-${tag}`, `privacy-${tag}`] } })).toEqual(["About us", "Privacy"]);
    expect(await titles({ slug: { $hasSome: [`privacy-${tag}`] } })).toEqual(["Privacy"]);
    expect(await titles({ title: { $contains: "RETURNS" } })).toEqual(["Shipping and returns"]);
    expect(await titles({ title: { $startsWith: "ab" } })).toEqual(["About us"]);
    expect(await titles({ $or: [{ title: "Privacy" }, { _id: pageIds[`about-${tag}`] }] })).toEqual(["About us", "Privacy"]);
    const menus = await query({ dataCollectionId: "Menus", query: { filter: { pages: { $hasSome: [pageIds[`about-${tag}`]] } } } });
    expect(menus.body.dataItems.map((m: { id: string }) => m.id)).toEqual([menuId]);
  });

  it("pages by offset and by cursor, the cursor carrying the query to its end", async () => {
    const base = { filter: { slug: { $contains: tag } }, sort: [{ fieldName: "slug", order: "ASC" }] };
    const second = await query({ dataCollectionId: "Pages", query: { ...base, paging: { limit: 2, offset: 2 } } });
    expect(second.body.pagingMetadata).toMatchObject({ count: 1, offset: 2, total: 3 });
    expect(second.body.dataItems[0].data.slug).toBe(`shipping-${tag}`);

    const first = await query({ dataCollectionId: "Pages", query: { ...base, cursorPaging: { limit: 2 } } });
    expect(first.body.dataItems.map((i: { data: { slug: string } }) => i.data.slug)).toEqual([`about-${tag}`, `privacy-${tag}`]);
    expect(first.body.pagingMetadata.hasNext).toBe(true);
    const next = await query({ dataCollectionId: "Pages", query: { cursorPaging: { limit: 2, cursor: first.body.pagingMetadata.cursors.next } } });
    expect(next.body.dataItems.map((i: { data: { slug: string } }) => i.data.slug)).toEqual([`shipping-${tag}`]);
    expect(next.body.pagingMetadata).toMatchObject({ hasNext: false, cursors: {} });
  });

  it("the shop's navigation read gives each menu's links in order, in the collections query's batch", async () => {
    const { ctx } = serviceCtx({ kind: "anonymous" });
    const slugs = [`header-${tag}`, "no-such-menu"];
    const [answer, [rows]] = await queryCollectionsWith(ctx, { paging: { limit: 5 } }, menuLinksRead(ctx.db, slugs));
    expect(Array.isArray(answer.collections)).toBe(true);
    const menus = menuLinksOf(rows, slugs);
    expect(menus[`header-${tag}`]).toEqual([
      { title: "Shipping and returns", href: `/pages/shipping-${tag}` },
      { title: "About us", href: `/pages/about-${tag}` },
    ]);
    expect(menus["no-such-menu"]).toEqual([]);
  });

  it("gets one item by id; a missing one is WDE0073", async () => {
    const res = await api("GET", `/wix-data/v2/items/${pageIds[`privacy-${tag}`]}?dataCollectionId=Pages`);
    expect(res.status).toBe(200);
    expect(res.body.dataItem).toMatchObject({ id: pageIds[`privacy-${tag}`], dataCollectionId: "Pages", data: { title: "Privacy" } });
    const missing = await api("GET", "/wix-data/v2/items/nothing-here?dataCollectionId=Pages");
    expect(missing.status).toBe(404);
    expect(missing.body.details.applicationError.code).toBe("WDE0073");
  });

  it("answers a collection that does not exist with WDE0025 in the error shape, GET and POST", async () => {
    for (const res of [
      await getQuery("/wix-data/v2/items/query", { dataCollectionId: "Products", query: {} }),
      await query({ dataCollectionId: "Products", query: {} }),
      await api("GET", "/wix-data/v2/items/x?dataCollectionId=Products"),
    ]) {
      expect(res.status).toBe(404);
      expect(res.headers.get("content-type")).toContain("application/json");
      expect(res.body.details.applicationError).toMatchObject({ code: "WDE0025", data: { collectionId: "Products" } });
      expect(res.body.message).toContain("WDE0025");
    }
  });

  it("refuses malformed queries with the field at fault", async () => {
    const cases: [unknown, string][] = [
      [{ query: {} }, "dataCollectionId"],
      [{ dataCollectionId: "Pages", query: { filter: { colour: "red" } } }, "query.filter.colour"],
      [{ dataCollectionId: "Pages", query: { filter: { title: { $regex: "x" } } } }, "query.filter.title.$regex"],
      [{ dataCollectionId: "Pages", query: { sort: [{ fieldName: "body" }] } }, "query.sort[0].fieldName"],
      [{ dataCollectionId: "Pages", query: { paging: { limit: 5000 } } }, "query.paging.limit"],
      [{ dataCollectionId: "Pages", query: { cursorPaging: { cursor: "not-ours" } } }, "query.cursorPaging.cursor"],
      [{ dataCollectionId: "Pages", includeReferences: [{ field: "pages" }] }, "includeReferences[0].field"],
      [{ dataCollectionId: "Menus", includeReferences: [{ field: "owner" }] }, "includeReferences[0].field"],
    ];
    for (const [payload, field] of cases) {
      const res = await query(payload as Record<string, unknown>);
      expect(res.status, field).toBe(400);
      expect(res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field)).toContain(field);
    }
    const garbled = await api("GET", "/wix-data/v2/items/query?.r=%%%");
    expect(garbled.status).toBe(400);
  });
});

describe("Wix Data items: writes", () => {
  it("needs cms.write: nobody, a visitor and staff without it are refused and nothing is written", async () => {
    const before = await cmsRows();
    const staff = await staffWith(["catalog.write", "settings.manage"]);
    const data = { slug: `refused-${tag}`, title: "Refused" };
    const anonymous = await api("POST", "/wix-data/v2/items", { body: { dataCollectionId: "Pages", dataItem: { data } } });
    expect(anonymous.status).toBe(401);
    expect((await insert("Pages", data, await visitorToken())).status).toBe(403);
    const refused = await insert("Pages", data, staff.token);
    expect(refused.status).toBe(403);
    expect(refused.body.details.applicationError.description).toContain("cms.write");
    expect(
      (await api("POST", "/wix-data/v2/items/remove", { key: staff.token, body: { dataCollectionId: "Pages", dataItemId: menuId } })).status,
    ).toBe(403);
    expect(await cmsRows()).toEqual(before);

    const editor = await staffWith(["cms.write"]);
    const allowed = await insert("Pages", { slug: `allowed-${tag}`, title: "Allowed" }, editor.token);
    expect(allowed.status).toBe(200);
  });

  it("refuses bad items with the field at fault and writes nothing", async () => {
    const before = await cmsRows();
    const cases: [string, Record<string, unknown>, string][] = [
      ["Pages", { title: "No slug" }, "dataItem.data.slug"],
      ["Pages", { slug: "Has Spaces", title: "x" }, "dataItem.data.slug"],
      ["Pages", { slug: `about-${tag}`, title: "Same slug" }, "dataItem.data.slug"],
      ["Pages", { slug: `x-${tag}`, title: "" }, "dataItem.data.title"],
      ["Pages", { slug: `x-${tag}`, title: "x", colour: "red" }, "dataItem.data.colour"],
      ["Menus", { slug: `m-${tag}`, title: "x", pages: ["no-such-page"] }, "dataItem.data.pages[0]"],
      ["Menus", { slug: `m-${tag}`, title: "x", pages: [pageIds[`about-${tag}`], pageIds[`about-${tag}`]] }, "dataItem.data.pages"],
    ];
    for (const [collection, data, field] of cases) {
      const res = await insert(collection, data);
      expect(res.status, field).toBe(400);
      expect(res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field)).toContain(field);
    }
    expect((await insert("Blog", { slug: "x", title: "x" })).body.details.applicationError.code).toBe("WDE0025");
    expect((await merchant("POST", "/wix-data/v2/items", { dataCollectionId: "Pages" })).status).toBe(400);
    expect(await cmsRows()).toEqual(before);
  });

  it("updates a menu's pages (order kept), records the event and purges the shop's cache", async () => {
    const versionBefore = await catalogVersion(env);
    await new Promise((r) => setTimeout(r, 5));
    const res = await merchant("POST", "/wix-data/v2/items/update", {
      dataCollectionId: "Menus",
      dataItem: { id: menuId, data: { slug: `header-${tag}`, title: "Header", pages: [pageIds[`privacy-${tag}`], pageIds[`about-${tag}`]] } },
    });
    expect(res.status).toBe(200);
    expect(res.body.dataItem.data.pages).toEqual([pageIds[`privacy-${tag}`], pageIds[`about-${tag}`]]);
    expect((await outboxRows(menuId)).map((r: { type: string }) => r.type)).toContain("wix.data.v2.data_item_updated");
    expect(await catalogVersion(env)).not.toBe(versionBefore);
    const missing = await merchant("PUT", "/wix-data/v2/items/none", {
      dataCollectionId: "Menus",
      dataItem: { data: { slug: "none", title: "None" } },
    });
    expect(missing.status).toBe(404);
    expect(missing.body.details.applicationError.code).toBe("WDE0073");
  });

  it("removing a page takes it out of every menu that listed it, in the same write", async () => {
    const victim = await insert("Pages", { slug: `gone-${tag}`, title: "Gone" });
    const id = victim.body.dataItem.id;
    const menu = await insert("Menus", { slug: `footer-${tag}`, title: "Footer", pages: [pageIds[`about-${tag}`], id, pageIds[`privacy-${tag}`]] });
    const removed = await merchant("POST", "/wix-data/v2/items/remove", { dataCollectionId: "Pages", dataItemId: id });
    expect(removed.status).toBe(200);
    expect(removed.body.dataItem.data.title).toBe("Gone");
    const after = await api("GET", `/wix-data/v2/items/${menu.body.dataItem.id}?dataCollectionId=Menus`);
    expect(after.body.dataItem.data.pages).toEqual([pageIds[`about-${tag}`], pageIds[`privacy-${tag}`]]);
    expect(after.body.dataItem.data.links).toEqual([
      { type: "PAGE", page: pageIds[`about-${tag}`] },
      { type: "PAGE", page: pageIds[`privacy-${tag}`] },
    ]);
    expect((await merchant("DELETE", `/wix-data/v2/items/${id}?dataCollectionId=Pages`)).status).toBe(404);
  });
});

describe("menus link collections and free URLs", () => {
  it("stores links to pages, collections and URLs in order; pages stay the reference field the template reads", async () => {
    const made = await merchant("POST", "/v1/collections", { collection: { name: `Menu mugs ${tag}` } });
    const hidden = await merchant("POST", "/v1/collections", { collection: { name: `Menu secret ${tag}`, visible: false } });
    const mugs = made.body.collection as { id: string; slug: string; name: string };
    const links = [
      { type: "COLLECTION", collection: mugs.id },
      { type: "PAGE", page: pageIds[`about-${tag}`] },
      { type: "URL", title: "Journal", url: "https://journal.example.com/" },
      { type: "COLLECTION", collection: hidden.body.collection.id },
      { type: "URL", title: "All products", url: "/shop" },
    ];
    const res = await insert("Menus", { slug: `links-${tag}`, title: "Links", links });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.dataItem.data).toMatchObject({ links, pages: [pageIds[`about-${tag}`]] });

    // The Wix template's read: pages inline through the reference, as before.
    const read = await getQuery("/wix-data/v2/items/query", {
      dataCollectionId: "Menus",
      query: { filter: { slug: `links-${tag}` } },
      includeReferences: [{ field: "pages" }],
    });
    expect(read.body.dataItems[0].data.pages.map((p: { slug: string }) => p.slug)).toEqual([`about-${tag}`]);

    // The shop's navigation: titles and paths, the hidden collection left out.
    const { ctx } = serviceCtx({ kind: "anonymous" });
    const [, [rows]] = await queryCollectionsWith(ctx, { paging: { limit: 1 } }, menuLinksRead(ctx.db, [`links-${tag}`]));
    expect(menuLinksOf(rows, [`links-${tag}`])[`links-${tag}`]).toEqual([
      { title: mugs.name, href: `/collections/${mugs.slug}` },
      { title: "About us", href: `/pages/about-${tag}` },
      { title: "Journal", href: "https://journal.example.com/" },
      { title: "All products", href: "/shop" },
    ]);

    // A client that writes only pages (the template's shape) gets page links.
    const pagesOnly = await merchant("POST", "/wix-data/v2/items/update", {
      dataCollectionId: "Menus",
      dataItem: { id: res.body.dataItem.id, data: { slug: `links-${tag}`, title: "Links", pages: [pageIds[`privacy-${tag}`]] } },
    });
    expect(pagesOnly.body.dataItem.data.links).toEqual([{ type: "PAGE", page: pageIds[`privacy-${tag}`] }]);
  });

  it("refuses a missing collection, a bad URL and a duplicate link, writing nothing", async () => {
    const before = await cmsRows();
    for (const [links, field] of [
      [[{ type: "COLLECTION", collection: "no-such-collection" }], "dataItem.data.links[0].collection"],
      [[{ type: "URL", title: "Bad", url: "javascript:alert(1)" }], "dataItem.data.links[0].url"],
      [
        [
          { type: "PAGE", page: pageIds[`about-${tag}`] },
          { type: "PAGE", page: pageIds[`about-${tag}`] },
        ],
        "dataItem.data.links",
      ],
      [[{ type: "SHELF", shelf: "x" }], "dataItem.data.links[0].type"],
    ] as const) {
      const res = await insert("Menus", { slug: `bad-${tag}`, title: "Bad", links });
      expect(res.status, JSON.stringify(links)).toBe(400);
      expect(res.body.details.validationError.fieldViolations.map((v: { field: string }) => v.field)).toContain(field);
    }
    expect(await cmsRows()).toEqual(before);
  });
});
