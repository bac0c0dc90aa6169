import { Suspense } from "react";
import { Await } from "react-router";
import { queryCollections } from "../../worker/catalog/collections";
import { queryProducts } from "../../worker/catalog/products";
import type { Route } from "./+types/home";

export function meta() {
  return [
    { title: "Edge Storefront — shop the catalogue" },
    { name: "description", content: "Apparel, home goods and coffee from a small independent shop, served from the edge." },
  ];
}

/** Products are critical (awaited); the collection list streams in after the shell. */
export async function loader({ context }: Route.LoaderArgs) {
  const ctx = context.services;
  const products = await queryProducts(ctx, { query: { paging: { limit: 100 }, sort: [{ fieldName: "numericId", order: "ASC" }] } });
  const collections = queryCollections(ctx, { paging: { limit: 50 } }).then((r) => r.collections.map((c) => ({ id: c.id, name: c.name, count: c.numberOfProducts })));
  return {
    total: products.metadata.total,
    products: products.products.map((p) => ({
      id: p.id,
      name: p.name,
      ribbon: p.ribbon,
      brand: p.brand,
      inStock: p.stock.inStock,
      price: p.price.formatted.price,
      discountedPrice: p.price.formatted.discountedPrice,
      image: p.media.mainMedia && "image" in p.media.mainMedia ? { url: p.media.mainMedia.image.url, alt: p.media.mainMedia.image.altText ?? p.name } : null,
    })),
    collections,
  };
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const { products, total, collections } = loaderData;
  return (
    <main className="page">
      <h1>The catalogue</h1>
      <Suspense fallback={<p className="muted">Loading collections…</p>}>
        <Await resolve={collections}>
          {(list) => (
            <nav aria-label="Collections">
              <ul className="chips">
                {list.map((c) => (
                  <li key={c.id}>
                    {c.name} <span className="muted">({c.count})</span>
                  </li>
                ))}
              </ul>
            </nav>
          )}
        </Await>
      </Suspense>
      <p className="muted">{total} products</p>
      {products.length === 0 ? (
        <p>The catalogue is empty.</p>
      ) : (
        <ul className="grid">
          {products.map((p) => (
            <li key={p.id} className="card">
              {p.image && <img src={p.image.url} alt={p.image.alt} width={400} height={400} loading="lazy" decoding="async" />}
              {p.ribbon && <span className="ribbon">{p.ribbon}</span>}
              <h2>{p.name}</h2>
              {p.brand && <p className="muted">{p.brand}</p>}
              <p className="price">
                {p.discountedPrice !== p.price ? (
                  <>
                    <del>{p.price}</del> <strong>{p.discountedPrice}</strong>
                  </>
                ) : (
                  <strong>{p.price}</strong>
                )}
                {!p.inStock && <span className="sold-out"> · Sold out</span>}
              </p>
            </li>
          ))}
        </ul>
      )}
    </main>
  );
}
