import { queryCollections, richToMarkdown, type RichNode } from "#worker/catalog";
import { getItem, insertItem, itemBySlug, listItems, MENUS, PAGES, updateItem, type MenuLinkData } from "#worker/cms";
import { requirePermission, type Ctx } from "#worker/platform/context";
import { badField } from "#worker/platform/errors";
import { orRefuse } from "#web/components/console/problem.server";

/**
 * The console's Content section over the CMS's items service (the same calls as the Wix Data API): the pages, and
 * the menus the shop's header and footer show. Every write goes through insertItem / updateItem / removeItem, which
 * check cms.write and refuse bad input with nothing written.
 */

/** The menus the shop itself shows, listed even before they hold anything. */
export const SHOP_MENUS = [
  { slug: "header-menu", title: "Header", where: "The links after “Shop all” in the shop's header." },
  { slug: "footer-menu", title: "Footer", where: "The links in the “Help” column of the shop's footer." },
] as const;

interface PageData {
  _id: string;
  title: string;
  slug: string;
  seoDescription: string;
  content: { nodes: RichNode[] };
  _updatedDate: { $date: string };
}

interface MenuData {
  _id: string;
  title: string;
  slug: string;
  pages: (string | PageData)[];
  links: MenuLinkData[];
}

/** The pages and menus for the section's list page (2 D1 round trips). */
export async function contentOverview(ctx: Ctx) {
  const [pages, menus] = await Promise.all([listItems(ctx, PAGES), listItems(ctx, MENUS)]);
  const pageRows = pages.map((p) => {
    const d = p.data as unknown as PageData;
    return { id: p.id, title: d.title, slug: d.slug, updated: d._updatedDate.$date };
  });
  const stored = new Map(menus.map((m) => [m.data.slug as string, m.data as unknown as MenuData]));
  const menuRows = [
    ...SHOP_MENUS.map((s) => ({
      slug: s.slug,
      title: stored.get(s.slug)?.title ?? s.title,
      where: s.where,
      count: stored.get(s.slug)?.links.length ?? 0,
    })),
    ...menus
      .filter((m) => !SHOP_MENUS.some((s) => s.slug === m.data.slug))
      .map((m) => {
        const d = m.data as unknown as MenuData;
        return { slug: d.slug, title: d.title, where: "Read by headless sites through the Wix Data API.", count: d.links.length };
      }),
  ];
  return { pages: pageRows, menus: menuRows };
}

/** A page for its editor, its rich content as Markdown (null for "new"); a missing page is the console's 404. */
export async function pageForEditor(ctx: Ctx, id: string) {
  if (id === "new") return null;
  const { dataItem } = await orRefuse(getItem(ctx, PAGES, id));
  const d = dataItem.data as unknown as PageData;
  return {
    id: dataItem.id,
    title: d.title,
    slug: d.slug,
    seoDescription: d.seoDescription,
    body: richToMarkdown(d.content.nodes),
    updated: d._updatedDate.$date,
  };
}

/** The page form's fields (named by their API path under dataItem.data) as the items service's request. */
export function pageRequest(v: Record<string, string>, id?: string) {
  const field = (name: string) => (v[`dataItem.data.${name}`] ?? "").trim();
  const data = {
    title: field("title"),
    slug: field("slug").toLowerCase(),
    body: v["dataItem.data.body"] ?? "",
    seoDescription: field("seoDescription"),
  };
  return { dataCollectionId: PAGES, dataItem: { ...(id ? { id } : {}), data } };
}

/** Creates or saves a page; returns the stored item. */
export async function savePage(ctx: Ctx, v: Record<string, string>, id?: string) {
  requirePermission(ctx, "cms.write");
  const request = pageRequest(v, id);
  return id ? (await updateItem(ctx, request)).dataItem : (await insertItem(ctx, request)).dataItem;
}

/** A menu's entry in the editor: what it links to (`key`, unique in the menu), its title and its path. */
export interface MenuEntry {
  key: string;
  type: MenuLinkData["type"];
  title: string;
  path: string;
}

const keyOf = (l: MenuLinkData) => (l.type === "PAGE" ? `PAGE:${l.page}` : l.type === "COLLECTION" ? `COLLECTION:${l.collection}` : `URL:${l.url}`);

/**
 * A menu for its editor by slug (a shop menu not stored yet is empty): its links in order, and the pages and
 * collections it may add (3 reads, run together). A link to a page or collection that is gone is not listed.
 */
export async function menuForEditor(ctx: Ctx, slug: string) {
  const [menu, pages, { collections }] = await Promise.all([
    itemBySlug(ctx, MENUS, slug),
    listItems(ctx, PAGES),
    queryCollections(ctx, { paging: { limit: 100 } }),
  ]);
  const shop = SHOP_MENUS.find((s) => s.slug === slug);
  if (!menu && !shop) throw new Response("Menu not found", { status: 404 });
  const d = menu?.data as unknown as MenuData | undefined;
  const pageById = new Map(pages.map((p) => [p.id, p.data as unknown as PageData]));
  const collectionById = new Map(collections.map((c) => [c.id, c]));
  const links: { link: MenuLinkData; entry: MenuEntry }[] = [];
  for (const link of d?.links ?? []) {
    const key = keyOf(link);
    if (link.type === "PAGE") {
      const p = pageById.get(link.page);
      if (p) links.push({ link, entry: { key, type: link.type, title: p.title, path: `/pages/${p.slug}` } });
    } else if (link.type === "COLLECTION") {
      const c = collectionById.get(link.collection);
      if (c) links.push({ link, entry: { key, type: link.type, title: c.name, path: `/collections/${c.slug}` } });
    } else links.push({ link, entry: { key, type: link.type, title: link.title, path: link.url } });
  }
  const listed = new Set(links.map((l) => l.entry.key));
  const choices = [
    ...pages.filter((p) => !listed.has(`PAGE:${p.id}`)).map((p) => [`PAGE:${p.id}`, `${p.data.title} (/pages/${p.data.slug})`] as const),
    ...collections
      .filter((c) => c.visible !== false && !listed.has(`COLLECTION:${c.id}`))
      .map((c) => [`COLLECTION:${c.id}`, `${c.name} (/collections/${c.slug})`] as const),
  ];
  return {
    id: menu?.id ?? null,
    slug,
    title: d?.title ?? shop?.title ?? slug,
    where: shop?.where ?? null,
    entries: links.map((l) => l.entry),
    links: links.map((l) => l.link),
    choices,
  };
}

/** A change to a menu's links: add a page or collection (by key) or a free URL at the end, remove one, or move one. */
export type MenuChange =
  | { kind: "add" | "remove" | "up" | "down"; key: string }
  | { kind: "addUrl"; title: string; url: string }
  | { kind: "rename"; title: string };

/** The link an editor's key names: `PAGE:{id}` or `COLLECTION:{id}` (the items service checks that it exists). */
function linkOfKey(key: string): MenuLinkData {
  const [type, ...rest] = key.split(":");
  const id = rest.join(":");
  if (type === "PAGE" && id) return { type: "PAGE", page: id };
  if (type === "COLLECTION" && id) return { type: "COLLECTION", collection: id };
  throw badField("link", "must name a page or a collection");
}

/** Applies a change to the menu and stores it (creating a shop menu on its first change); returns a notice. */
export async function changeMenu(ctx: Ctx, slug: string, change: MenuChange): Promise<string> {
  requirePermission(ctx, "cms.write");
  const menu = await menuForEditor(ctx, slug);
  const links = [...menu.links];
  const keys = menu.entries.map((e) => e.key);
  let title = menu.title;
  let notice: string;
  if (change.kind === "rename") {
    title = change.title.trim();
    notice = `Saved the menu “${title}”.`;
  } else if (change.kind === "addUrl") {
    links.push({ type: "URL", title: change.title.trim(), url: change.url.trim() });
    notice = "Added the link to the menu.";
  } else {
    const at = keys.indexOf(change.key);
    const name = menu.entries[at]?.title ?? "the link";
    if (change.kind === "add") {
      if (at >= 0) throw badField("link", "is already in this menu");
      const link = linkOfKey(change.key);
      links.push(link);
      notice = link.type === "PAGE" ? "Added the page to the menu." : "Added the collection to the menu.";
    } else {
      if (at < 0) throw badField("link", "is not in this menu");
      if (change.kind === "remove") links.splice(at, 1);
      else {
        const to = change.kind === "up" ? at - 1 : at + 1;
        if (to < 0 || to >= links.length) throw badField("link", `is already ${change.kind === "up" ? "first" : "last"}`);
        [links[at], links[to]] = [links[to], links[at]];
      }
      notice = change.kind === "remove" ? `Removed “${name}” from the menu.` : `Moved “${name}” ${change.kind}.`;
    }
  }
  const request = { dataCollectionId: MENUS, dataItem: { ...(menu.id ? { id: menu.id } : {}), data: { slug, title, links } } };
  if (menu.id) await updateItem(ctx, request);
  else await insertItem(ctx, request);
  return notice;
}
