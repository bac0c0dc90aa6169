import { collectionOr404, listingFacets, listProducts, readListingState } from "#web/catalog.server";
import { Listing } from "#web/components/catalog/listing";
import { hasFilters, seoMeta, SHOP_NAME } from "#web/components/catalog/shared";
import { NoMatches } from "./shop";
import type { Route } from "./+types/collection";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

/** A collection: the collection and its first page are critical (a missing collection is a 404); facets stream. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const url = new URL(request.url);
  const state = readListingState(url);
  const collection = await collectionOr404(ctx, params.slug);
  // The filter form is part of the page without JavaScript, so its facets are awaited too (side by side).
  const [list, facets] = await Promise.all([listProducts(ctx, state, collection.id), listingFacets(ctx, state, collection.id)]);
  const image = collection.media.mainMedia?.image.url;
  return {
    collection: { name: collection.name, description: collection.description },
    state,
    ...list,
    facets,
    seo: {
      title: `${collection.name}${state.page > 1 ? ` (page ${state.page})` : ""} — ${SHOP_NAME}`,
      description: collection.description || `${collection.name} at ${SHOP_NAME}.`,
      canonical: `${url.origin}/collections/${collection.slug}${state.page > 1 ? `?page=${state.page}` : ""}`,
      ...(image ? { image } : {}),
      noindex: hasFilters(state),
    },
  };
}

export default function Collection({ loaderData }: Route.ComponentProps) {
  const { collection, state, cards, total, pages, facets } = loaderData;
  return (
    <Listing
      heading={<h1>{collection.name}</h1>}
      intro={collection.description ? <p className="lede">{collection.description}</p> : null}
      state={state}
      cards={cards}
      total={total}
      pages={pages}
      facets={facets}
      empty={<NoMatches />}
    />
  );
}
