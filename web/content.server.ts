import { cachedCatalogRead, queryCollectionsWith, type RichNode } from "#worker/catalog";
import { itemBySlug, menuLinksOf, menuLinksRead, PAGES } from "#worker/cms";
import { NAV_COLLECTIONS_QUERY, navCollectionsOf } from "./catalog.server";
import type { Ctx } from "#worker/platform/context";

/** The menus the shop's header and footer show (the console's Content section edits them). */
export const HEADER_MENU = "header-menu";
export const FOOTER_MENU = "footer-menu";

/**
 * The page frame's navigation: the header's and footer's links from the CMS menus and the visible collections for the
 * footer, read in one D1 round trip and cached with the catalogue (a CMS or catalogue write purges it).
 */
export function navFrame(ctx: Ctx) {
  return cachedCatalogRead(ctx, "navFrame", null, async () => {
    const slugs = [HEADER_MENU, FOOTER_MENU];
    const [answer, [menuRows]] = await queryCollectionsWith(ctx, NAV_COLLECTIONS_QUERY, menuLinksRead(ctx.db, slugs));
    const menus = menuLinksOf(menuRows, slugs);
    return { collections: navCollectionsOf(ctx, answer.collections), header: menus[HEADER_MENU], footer: menus[FOOTER_MENU] };
  });
}

/** A content page by slug for /pages/{slug}, or the 404 page. */
export async function contentPageOr404(ctx: Ctx, slug: string) {
  const item = await cachedCatalogRead(ctx, "contentPage", slug, () => itemBySlug(ctx, PAGES, slug));
  if (!item) throw new Response("Page not found", { status: 404 });
  const data = item.data as { title: string; slug: string; seoTitle: string; seoDescription: string; content: { nodes: RichNode[] } };
  return { title: data.title, slug: data.slug, seoTitle: data.seoTitle, seoDescription: data.seoDescription, nodes: data.content.nodes };
}
