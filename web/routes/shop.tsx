import { listingFacets, listProducts, readListingState } from "#web/catalog.server";
import { Listing } from "#web/components/catalog/listing";
import { hasFilters, seoMeta, SHOP_NAME } from "#web/components/catalog/shared";
import type { Route } from "./+types/shop";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

/** All products: the first page of results is critical; the facet counts stream in after. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const url = new URL(request.url);
  const state = readListingState(url);
  // The filter form is part of the page without JavaScript, so its facets are awaited too (side by side).
  const [list, facets] = await Promise.all([listProducts(ctx, state, null), listingFacets(ctx, state, null)]);
  return {
    state,
    ...list,
    facets,
    seo: {
      title: `All products${state.page > 1 ? ` (page ${state.page})` : ""} — ${SHOP_NAME}`,
      description: "Everything in the shop: apparel, shoes, bags, home goods and coffee, with free shipping over $75.",
      canonical: `${url.origin}/shop${state.page > 1 ? `?page=${state.page}` : ""}`,
      noindex: hasFilters(state),
    },
  };
}

export default function Shop({ loaderData }: Route.ComponentProps) {
  const { state, cards, total, pages, facets } = loaderData;
  return (
    <Listing
      heading={<h1>All products</h1>}
      intro={<p className="lede">Everything in the shop, newest first. Narrow it down by size, colour, brand or price.</p>}
      state={state}
      cards={cards}
      total={total}
      pages={pages}
      facets={facets}
      empty={<NoMatches />}
    />
  );
}

export function NoMatches() {
  return (
    <div className="empty-state">
      <h2>No products match these filters</h2>
      <p>Try removing a filter or widening the price range.</p>
    </div>
  );
}
