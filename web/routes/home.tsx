import { Suspense } from "react";
import { Await, Link, useRouteLoaderData } from "react-router";
import { productCards } from "../catalog.server";
import { ProductGrid } from "../components/catalog/cards";
import { seoMeta, SHOP_NAME } from "../components/catalog/shared";
import type { loader as rootLoader } from "../root";
import type { Route } from "./+types/home";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

/**
 * New arrivals are critical (awaited); the sale row, below the fold, streams in after the shell. The collections
 * come with the frame (root loader), which already reads them for the navigation.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const origin = new URL(request.url).origin;
  const sale = productCards(ctx, { filter: { "discount.type": { $ne: "NONE" } }, sort: [{ fieldName: "price", order: "ASC" }], limit: 10 }).catch(() => []);
  const newArrivals = await productCards(ctx, { sort: [{ fieldName: "createdDate", order: "DESC" }], limit: 10 });
  return {
    newArrivals,
    sale,
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
          <Link to="/shop" className="button button-primary">
            Shop all products
          </Link>
          <Link to="/collections/sale" className="button secondary">
            See the sale
          </Link>
        </p>
      </section>

      <section className="home-section" aria-labelledby="collections-heading">
        <h2 id="collections-heading">Shop by collection</h2>
        <ul className="collection-grid">
          {collections.map((c) => (
            <li key={c.slug} className="collection-card">
              <Link to={`/collections/${c.slug}`}>
                {c.image && <img src={c.image.url} alt="" width={160} height={160} loading="lazy" decoding="async" />}
                <span className="collection-name">{c.name}</span>
                <span className="collection-count">
                  {c.count} {c.count === 1 ? "product" : "products"}
                </span>
              </Link>
            </li>
          ))}
        </ul>
      </section>

      <section className="home-section" aria-labelledby="new-heading">
        <div className="section-head">
          <h2 id="new-heading">New arrivals</h2>
          <Link to="/shop?sort=newest">See everything new</Link>
        </div>
        {newArrivals.length ? <ProductGrid cards={newArrivals} eager={2} label="New arrivals" /> : <p>The catalogue is empty.</p>}
      </section>

      <section className="home-section" aria-labelledby="sale-heading">
        <div className="section-head">
          <h2 id="sale-heading">On sale</h2>
          <Link to="/collections/sale">See the whole sale</Link>
        </div>
        <Suspense fallback={<p className="muted">Loading sale items…</p>}>
          <Await resolve={sale}>{(cards) => (cards.length ? <ProductGrid cards={cards} label="On sale" /> : <p className="muted">Nothing on sale right now.</p>)}</Await>
        </Suspense>
      </section>
    </main>
  );
}
