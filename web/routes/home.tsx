import { Suspense } from "react";
import { Await, useRouteLoaderData } from "react-router";
import { productCards } from "#web/catalog.server";
import { ProductGrid } from "#web/components/catalog/cards";
import { ShopLink } from "#web/components/shop-links";
import { seoMeta, SHOP_NAME, type ProductCard } from "#web/components/catalog/shared";
import type { loader as rootLoader } from "#web/root";
import type { Route } from "./+types/home";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

/**
 * New arrivals are critical (awaited); the sale row, below the fold, streams in after the shell when its read is
 * slower. Read from the cache, it is usually ready with the new arrivals: then it is part of the page, because a
 * streamed part costs a Suspense boundary, its fallback and a script for data that is already here. The collections
 * come with the frame (root loader), which already reads them for the navigation.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const origin = new URL(request.url).origin;
  let saleReady: ProductCard[] | undefined;
  const sale = productCards(ctx, { filter: { "discount.type": { $ne: "NONE" } }, sort: [{ fieldName: "price", order: "ASC" }], limit: 10 })
    .catch(() => [])
    .then((cards) => (saleReady = cards));
  const newArrivals = await productCards(ctx, { sort: [{ fieldName: "createdDate", order: "DESC" }], limit: 10 });
  // A read from memory settles a few promise turns later than the new arrivals; waiting one task lets it land.
  if (!saleReady) await Promise.race([sale, new Promise((resolve) => setTimeout(resolve, 0))]);
  return {
    newArrivals,
    sale: saleReady ?? sale,
    seo: {
      title: `${SHOP_NAME} — outdoor apparel, home goods and coffee`,
      description: "Apparel, home goods and coffee from a small independent shop, served from the edge. Free shipping over $75.",
      canonical: `${origin}/`,
    },
  };
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const { newArrivals, sale } = loaderData;
  const collections = useRouteLoaderData<typeof rootLoader>("root")?.collections ?? [];
  return (
    <main className="page home">
      <section className="hero" aria-labelledby="hero-heading">
        <h1 id="hero-heading">Good things for outside and in</h1>
        <p className="lede">Soft tees, warm layers, sturdy bags, small-batch coffee and things for the home — made to last, shipped free over $75.</p>
        <p className="hero-actions">
          <ShopLink to="/shop" className="button button-primary">
            Shop all products
          </ShopLink>
          <ShopLink to="/collections/sale" className="button secondary">
            See the sale
          </ShopLink>
        </p>
      </section>

      <section className="home-section" aria-labelledby="collections-heading">
        <h2 id="collections-heading">Shop by collection</h2>
        <ul className="collection-grid">
          {collections.map((c) => (
            <li key={c.slug} className="collection-card">
              <ShopLink to={`/collections/${c.slug}`}>
                {c.image && <img src={c.image.url} alt="" width={160} height={160} loading="lazy" decoding="async" />}
                <span className="collection-name">{c.name}</span>
                <span className="collection-count">
                  {c.count} {c.count === 1 ? "product" : "products"}
                </span>
              </ShopLink>
            </li>
          ))}
        </ul>
      </section>

      <section className="home-section" aria-labelledby="new-heading">
        <div className="section-head">
          <h2 id="new-heading">New arrivals</h2>
          <ShopLink to="/shop?sort=newest">See everything new</ShopLink>
        </div>
        {newArrivals.length ? <ProductGrid cards={newArrivals} eager={2} label="New arrivals" /> : <p>The catalogue is empty.</p>}
      </section>

      <section className="home-section" aria-labelledby="sale-heading">
        <div className="section-head">
          <h2 id="sale-heading">On sale</h2>
          <ShopLink to="/collections/sale">See the whole sale</ShopLink>
        </div>
        {Array.isArray(sale) ? (
          <SaleRow cards={sale} />
        ) : (
          <Suspense fallback={<p className="muted">Loading sale items…</p>}>
            <Await resolve={sale}>{(cards) => <SaleRow cards={cards} />}</Await>
          </Suspense>
        )}
      </section>
    </main>
  );
}

function SaleRow({ cards }: { cards: ProductCard[] }) {
  return cards.length ? <ProductGrid cards={cards} label="On sale" /> : <p className="muted">Nothing on sale right now.</p>;
}
