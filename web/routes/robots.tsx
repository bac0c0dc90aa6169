import type { Route } from "./+types/robots";

/**
 * /robots.txt: everything but checkout and the account may be crawled (the cart too: a crawler sees the empty cart
 * page, and Lighthouse's SEO audit covers it); the sitemap lists the catalogue.
 */
export function loader({ request }: Route.LoaderArgs) {
  const origin = new URL(request.url).origin;
  const body = ["User-agent: *", "Disallow: /checkout", "Disallow: /account", "", `Sitemap: ${origin}/sitemap.xml`, ""].join("\n");
  return new Response(body, { headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=3600" } });
}
