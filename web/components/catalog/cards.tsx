import { ShopLink } from "../shop-links";
import type { ProductCard } from "./shared";

/** The widths a card image is shown at, for a raster srcset (the demo's SVGs scale, so they need only one src). */
export const CARD_SIZES = "(min-width: 80rem) 18rem, (min-width: 40rem) 30vw, 50vw";

/**
 * A raster image's srcset at the given widths, in the `?w=<width>` form an image-resizing front (Cloudflare Image
 * Resizing, an R2 resizing Worker) answers; a host that ignores it serves the same file for each, which costs
 * nothing. SVG (the demo catalogue's images) scales by itself: a single src with its explicit size.
 */
export function srcSetOf(url: string, widths: number[]): string | undefined {
  if (url.endsWith(".svg")) return undefined;
  return widths.map((w) => `${url}${url.includes("?") ? "&" : "?"}w=${w} ${w}w`).join(", ");
}

/** A price with its before-discount price struck through, and "from" when variants cost different amounts. */
export function Price({
  price,
  compareAt,
  from = false,
  className = "price",
}: {
  price: string;
  compareAt?: string | null;
  from?: boolean;
  className?: string;
}) {
  return (
    <p className={className}>
      {from && <span className="price-from">From </span>}
      {compareAt ? (
        <>
          <span className="price-now">
            <span className="visually-hidden">Sale price </span>
            {price}
          </span>{" "}
          <del className="price-was">
            <span className="visually-hidden">Regular price </span>
            {compareAt}
          </del>
        </>
      ) : (
        <span className="price-now">{price}</span>
      )}
    </p>
  );
}

/** One product in a grid: the image first, then name, brand and price; the whole card is one link. */
export function ProductCardView({ card, eager = false, headingLevel = 3 }: { card: ProductCard; eager?: boolean; headingLevel?: 2 | 3 }) {
  const Heading = headingLevel === 2 ? "h2" : "h3";
  return (
    <li className="card">
      <ShopLink to={`/products/${card.slug}`} className="card-link" prefetch>
        <div className="card-media">
          {card.image ? (
            <img
              src={card.image.url}
              srcSet={srcSetOf(card.image.url, [320, 480, 640, 800])}
              sizes={CARD_SIZES}
              // The card's title names the link; an alt text that only repeats the name would be read twice.
              alt={card.image.alt === card.name ? "" : card.image.alt}
              width={card.image.width}
              height={card.image.height}
              loading={eager ? "eager" : "lazy"}
              decoding="async"
            />
          ) : (
            <div className="card-noimage" aria-hidden="true" />
          )}
          {card.ribbon && <span className="ribbon">{card.ribbon}</span>}
        </div>
        <Heading className="card-title">{card.name}</Heading>
      </ShopLink>
      {card.brand && <p className="card-brand">{card.brand}</p>}
      <Price price={card.price} compareAt={card.compareAt} from={card.from} />
      {!card.inStock && <p className="stock-note">Sold out</p>}
    </li>
  );
}

export function ProductGrid({
  cards,
  eager = 0,
  headingLevel = 3,
  label,
}: {
  cards: ProductCard[];
  eager?: number;
  headingLevel?: 2 | 3;
  label?: string;
}) {
  return (
    <ul className="product-grid" aria-label={label}>
      {cards.map((card, i) => (
        <ProductCardView key={card.id} card={card} eager={i < eager} headingLevel={headingLevel} />
      ))}
    </ul>
  );
}
