import { cachedCatalogRead, type RichNode } from "#worker/catalog";
import { itemBySlug, menuPages, PAGES } from "#worker/cms";
import type { Ctx } from "#worker/platform/context";

/** The menus the shop's header and footer show (the console's Content section edits them). */
export const HEADER_MENU = "header-menu";
export const FOOTER_MENU = "footer-menu";

/** The header's and footer's links, from the CMS menus (cached with the catalogue; a CMS write purges it). */
export function navMenus(ctx: Ctx) {
  return cachedCatalogRead(ctx, "navMenus", null, async () => {
    const menus = await menuPages(ctx, [HEADER_MENU, FOOTER_MENU]);
    return { header: menus[HEADER_MENU], footer: menus[FOOTER_MENU] };
  });
}

/** A content page by slug for /pages/{slug}, or the 404 page. */
export async function contentPageOr404(ctx: Ctx, slug: string) {
  const item = await cachedCatalogRead(ctx, "contentPage", slug, () => itemBySlug(ctx, PAGES, slug));
  if (!item) throw new Response("Page not found", { status: 404 });
  const data = item.data as { title: string; slug: string; seoTitle: string; seoDescription: string; content: { nodes: RichNode[] } };
  return { title: data.title, slug: data.slug, seoTitle: data.seoTitle, seoDescription: data.seoDescription, nodes: data.content.nodes };
}
