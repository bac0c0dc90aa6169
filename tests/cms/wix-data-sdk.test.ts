import { ApiKeyStrategy, createClient, OAuthStrategy } from "@wix/sdk";
import { items } from "@wix/data";
import { describe, expect, it } from "vitest";
import { redirectWixHosts, rejection } from "../wix-sdk-host";
import { OWNER_KEY, unique } from "../helpers";

/**
 * The official Wix Data client (@wix/data 1.0.204, the version Wix's Next.js Commerce template pins) against the
 * Worker, only its host redirected: the merchant writes pages and a menu, and a visitor's client makes the template's
 * calls (the menu with its pages inline, a page by slug), and a collection that does not exist is WDE0025.
 */

const sent = redirectWixHosts();

const merchant = () => createClient({ modules: { items }, auth: ApiKeyStrategy({ apiKey: OWNER_KEY, siteId: "site-1" }) });
const visitor = () => createClient({ modules: { items }, auth: OAuthStrategy({ clientId: "test-client-id" }) });

describe("@wix/data items against the shop", () => {
  it("the template's menu and page reads work for a visitor, with the menu's pages inline in order", async () => {
    const tag = unique();
    const admin = merchant();
    const about = await admin.items.insert("Pages", { slug: `about-${tag}`, title: "About", body: "Made by **hand**." });
    const terms = await admin.items.insert("Pages", { slug: `terms-${tag}`, title: "Terms", body: "Be nice." });
    expect(about._id).toBeTruthy();
    const menu = await admin.items.insert("Menus", { slug: `header-${tag}`, title: "Header", pages: [terms._id, about._id] });
    expect(menu.pages).toEqual([terms._id, about._id]);

    const shopper = visitor();
    sent.length = 0;
    const { items: menus } = await shopper.items.query("Menus").eq("slug", `header-${tag}`).include("pages").find();
    expect(sent.some((r) => r.path === "/wix-data/v2/items/query")).toBe(true);
    expect(menus).toHaveLength(1);
    expect(menus[0].pages.map((p: { title: string; slug: string }) => `/${p.slug} ${p.title}`)).toEqual([
      `/terms-${tag} Terms`,
      `/about-${tag} About`,
    ]);

    const { items: pages } = await shopper.items.query("Pages").eq("slug", `about-${tag}`).find();
    expect(pages[0]).toMatchObject({ _id: about._id, title: "About", slug: `about-${tag}` });
    expect(pages[0].body).toContain("<strong>hand</strong>");

    const got = await shopper.items.get("Pages", terms._id as string);
    expect(got?.title).toBe("Terms");
  });

  it("pages through results and sorts as the client asks", async () => {
    const tag = unique();
    const admin = merchant();
    for (const n of [3, 1, 2]) await admin.items.insert("Pages", { slug: `p${n}-${tag}`, title: `Page ${n} ${tag}` });
    const first = await visitor().items.query("Pages").contains("slug", tag).ascending("title").limit(2).find();
    expect(first.items.map((p) => p.title)).toEqual([`Page 1 ${tag}`, `Page 2 ${tag}`]);
    expect(first.hasNext()).toBe(true);
    const second = await first.next();
    expect(second.items.map((p) => p.title)).toEqual([`Page 3 ${tag}`]);
  });

  it("a collection that does not exist rejects with WDE0025; a visitor cannot write", async () => {
    const missing = await rejection(visitor().items.query("Products").find());
    expect(JSON.stringify(missing)).toContain("WDE0025");
    const refused = await rejection(visitor().items.insert("Pages", { slug: `v-${unique()}`, title: "Visitor" }));
    expect(refused.details.applicationError.code).toBe("PERMISSION_DENIED");
  });
});
