import { listingFacets, listProducts, navCollections, readListingState } from "#web/catalog.server";
import { Listing } from "#web/components/catalog/listing";
import { hasFilters, seoMeta, SHOP_NAME } from "#web/components/catalog/shared";
import type { Route } from "./+types/search";
import { ShopLink } from "#web/components/shop-links";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

/**
 * Search through the catalogue's full-text index (queryProducts with query.search.expression): results are
 * critical, facets stream. With no results, the page suggests collections to browse instead.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const url = new URL(request.url);
  const state = readListingState(url, { search: true });
  const empty = { cards: [], total: 0, pages: 1 };
  // Results and facets side by side (the filter form must be in the page without JavaScript).
  const [list, facets] = state.q ? await Promise.all([listProducts(ctx, state, null), listingFacets(ctx, state, null)]) : [empty, null];
  const suggestions = list.total === 0 ? await navCollections(ctx).catch(() => []) : [];
  return {
    state,
    ...list,
    facets,
    suggestions,
    seo: {
      title: state.q ? `Search: ${state.q} — ${SHOP_NAME}` : `Search — ${SHOP_NAME}`,
      description: state.q ? `Products matching “${state.q}” at ${SHOP_NAME}.` : `Search the ${SHOP_NAME} catalogue.`,
      canonical: `${url.origin}/search${state.q ? `?q=${encodeURIComponent(state.q)}` : ""}`,
      // Result pages are for shoppers, not for the index.
      noindex: Boolean(state.q) || hasFilters(state),
    },
  };
}

export default function Search({ loaderData }: Route.ComponentProps) {
  const { state, cards, total, pages, facets, suggestions } = loaderData;
  const form = (
    <form method="get" action="/search" role="search" className="search-page-form" aria-label="Search the shop">
      <label htmlFor="search-page-q">Search products</label>
      <div className="search-row">
        <input
          id="search-page-q"
          type="search"
          name="q"
          defaultValue={state.q}
          key={state.q}
          maxLength={200}
          placeholder="e.g. merino, coffee, hoodie"
        />
        <button type="submit" className="button">
          Search
        </button>
      </div>
    </form>
  );
  return (
    <Listing
      heading={<h1>{state.q ? <>Results for “{state.q}”</> : "Search"}</h1>}
      intro={form}
      state={state}
      cards={cards}
      total={total}
      pages={pages}
      facets={facets}
      relevance
      empty={
        <div className="empty-state">
          {state.q ? (
            hasFilters(state) ? (
              <>
                <h2>No products match “{state.q}” with these filters</h2>
                <p>Try removing a filter.</p>
              </>
            ) : (
              <>
                <h2>Nothing matches “{state.q}”</h2>
                <ul className="help-list">
                  <li>Check the spelling, or try a shorter or more general word (“tee” rather than “t-shirts”).</li>
                  <li>Search by what it is, its colour or its brand: “navy”, “boots”, “Harbor Roast”.</li>
                  <li>
                    Or <ShopLink to="/shop">browse all products</ShopLink>.
                  </li>
                </ul>
              </>
            )
          ) : (
            <p>Type a word above to search names, descriptions, brands and SKUs.</p>
          )}
          {suggestions.length > 0 && (
            <>
              <h2>Browse a collection</h2>
              <ul className="chips">
                {suggestions.map((c) => (
                  <li key={c.id}>
                    <ShopLink to={`/collections/${c.slug}`}>{c.name}</ShopLink>
                  </li>
                ))}
              </ul>
            </>
          )}
        </div>
      }
    />
  );
}
