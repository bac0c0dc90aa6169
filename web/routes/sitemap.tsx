import { queryCollections, queryProducts } from "#worker/catalog";
import type { Route } from "./+types/sitemap";

/** Most URLs one sitemap file may list (sitemaps.org). */
const MAX_URLS = 50_000;

const xmlEscape = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&apos;");

/** /sitemap.xml: home, the shop, every visible collection and product, as absolute URLs on this origin. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const origin = new URL(request.url).origin;
  const urls: { loc: string; lastmod?: string }[] = [{ loc: `${origin}/` }, { loc: `${origin}/shop` }];

  for (let offset = 0; urls.length < MAX_URLS; offset += 100) {
    const page = await queryCollections(ctx, { paging: { limit: 100, offset } });
    for (const c of page.collections)
      if (c.slug !== "all-products") urls.push({ loc: `${origin}/collections/${encodeURIComponent(c.slug)}`, lastmod: c.updatedDate });
    if (offset + page.collections.length >= page.totalResults || !page.collections.length) break;
  }
  for (let offset = 0; urls.length < MAX_URLS; offset += 100) {
    const page = await queryProducts(ctx, { query: { paging: { limit: 100, offset }, sort: [{ fieldName: "numericId", order: "ASC" }] } });
    for (const p of page.products) urls.push({ loc: `${origin}/products/${encodeURIComponent(p.slug)}`, lastmod: p.updatedDate });
    if (offset + page.products.length >= page.metadata.total || !page.products.length) break;
  }

  const body =
    `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n` +
    urls
      .slice(0, MAX_URLS)
      .map((u) => `  <url><loc>${xmlEscape(u.loc)}</loc>${u.lastmod ? `<lastmod>${xmlEscape(u.lastmod)}</lastmod>` : ""}</url>`)
      .join("\n") +
    `\n</urlset>\n`;
  return new Response(body, { headers: { "Content-Type": "application/xml; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
