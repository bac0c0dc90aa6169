import { useId } from "react";
import { data, Form, useFetcher, useLocation, useNavigation, useRouteLoaderData } from "react-router";
import { cachedCatalogRead, getProductBySlug, getProductPage, plainToLine, RELATED_LIMIT } from "#worker/catalog";
import { BEST_SELLERS, BOUGHT_TOGETHER, firstSufficient, rankingsFor, SAME_COLLECTIONS } from "#worker/recommendations";
import { ApiError } from "#worker/platform/errors";
import { createBackInStockRequest } from "#worker/automations";
import { clientOf } from "#web/auth.server";
import { pageMessage } from "#web/components/ui/form.server";
import { cardOf, sameSiteUrl } from "#web/catalog.server";
import { Price, ProductGrid } from "#web/components/catalog/cards";
import { Gallery, type GalleryItem } from "#web/components/catalog/gallery";
import { OptionPicker, selectionSearch, type PickerOption } from "#web/components/catalog/option-picker";
import { RichContent, type RichNode } from "#web/components/catalog/rich-content";
import { seoMeta, SHOP_NAME } from "#web/components/catalog/shared";
import type { loader as rootLoader } from "#web/root";
import type { Route } from "./+types/product";
import { ShopLink } from "#web/components/shop-links";

export const meta = ({ data }: Route.MetaArgs) => seoMeta(data?.seo);

async function productOr404(ctx: Ctx, slug: string) {
  try {
    return await cachedCatalogRead(ctx, "getProductBySlug", slug, () => getProductBySlug(ctx, slug));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new Response("Product not found", { status: 404 });
    throw err;
  }
}

/**
 * The page's data through the shoppers' cache, stored already shaped (shaping it on every render cost more than the
 * render). The key holds only the URL parameters that name one of the product's options and choices (`?Size=M`), so
 * other parameters share one entry and made-up values cannot fill the cache or reach D1. The options are cached under
 * the slug on their own; the first read of a product makes both from one D1 round trip.
 */
async function productPageOr404(ctx: Ctx, slug: string, url: URL) {
  try {
    let made: Awaited<ReturnType<typeof productPageData>> | undefined;
    const choices = await cachedCatalogRead(ctx, "productOptionChoices", slug, async () => {
      made = await productPageData(ctx, slug, url);
      return made.options.map((o) => [o.name, o.choices.map((c) => c.name)] as const);
    });
    const asked = choices
      .filter(([name, names]) => names.includes(url.searchParams.get(name) ?? ""))
      .map(([name]) => name)
      .sort()
      .map((name) => [name, url.searchParams.get(name)]);
    return await cachedCatalogRead(ctx, "productPage", [slug, asked], async () => made ?? productPageData(ctx, slug, url));
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw new Response("Product not found", { status: 404 });
    throw err;
  }
}

/** Unit names for the price per unit ("$5.80 / 100 g"). */
const UNITS: Record<string, string> = {
  G: "g",
  KG: "kg",
  MG: "mg",
  LB: "lb",
  OZ: "oz",
  ML: "ml",
  CL: "cl",
  L: "l",
  FLOZ: "fl oz",
  M: "m",
  CM: "cm",
  MM: "mm",
  SQM: "m²",
};

/**
 * The product, the shopper's selection (from the URL: `?Size=M&Color=Navy`), what each choice's availability is for
 * it and the rich description, with suggested products (the recommendations): one D1 round trip when the cache is cold.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const page = await productPageOr404(context.services, params.slug, url);
  return {
    ...page,
    added: url.searchParams.get("added") === "1",
  };
}

type Ctx = Route.LoaderArgs["context"]["services"];
type ProductPage = Awaited<ReturnType<typeof getProductPage>>;
type PageProduct = ProductPage["product"];
type Availability = ProductPage["availability"];
type Variant = Availability["selectedVariant"];

/**
 * The recommendations the page suggests, in the order tried (the first to fill the row wins, as the Recommendations
 * API answers): products from the same collections, then bought together with it, then the best sellers.
 */
const SUGGESTION_ALGORITHMS = [SAME_COLLECTIONS, BOUGHT_TOGETHER, BEST_SELLERS];

/** The page's data for a URL (everything but `added`, which is not part of the cache key). */
async function productPageData(ctx: Ctx, slug: string, url: URL) {
  const { product, v3, selection, availability, suggestions } = await getProductPage(
    ctx,
    slug,
    (name) => url.searchParams.get(name),
    (item) => rankingsFor(SUGGESTION_ALGORITHMS, item),
  );
  const options = pickerOptions(availability);
  const gallery = galleryOf(ctx, product, availability, selection);
  const variant = availability.selectedVariant;
  const complete = product.productOptions.every((o) => selection[o.name]);
  const canonical = `${url.origin}/products/${product.slug}`;
  // The V1 description is HTML; the page shows the plain text (paragraphs and list items apart) on one line.
  const summary = plainToLine(v3.plainDescription);
  const absoluteImages = gallery.filter((g) => g.kind === "image").map((g) => new URL(g.url, url.origin).href);
  const offerUrl = canonical + selectionSearch(options, selection);
  return {
    product: {
      id: product.id,
      slug: product.slug,
      name: product.name,
      brand: product.brand,
      ribbon: product.ribbon,
      description: summary,
      richNodes: withoutLead((v3.description.nodes ?? []) as RichNode[], v3.plainDescription),
      infoSections: product.additionalInfoSections,
    },
    options,
    selection,
    complete,
    variantId: variant?.id ?? null,
    price: priceOf(product, variant),
    stock: stockOf(product, variant, complete),
    gallery,
    related: firstSufficient(suggestions, RELATED_LIMIT).map((p) => cardOf(p, ctx)),
    jsonLd: jsonLdText(productJsonLd(product, variant, { summary, offerUrl, images: absoluteImages })),
    seo: seoOf(product, summary, canonical, absoluteImages[0]),
  };
}

/** The product's options as the picker shows them, each choice with its availability for the selection. */
function pickerOptions(availability: Availability): PickerOption[] {
  return availability.productOptions.map((o) => ({
    name: o.name,
    color: o.optionType === "color",
    choices: o.choices.map((c) => ({
      name: c.description,
      swatch: o.optionType === "color" && /^#[0-9a-f]{3,8}$/i.test(c.value) ? c.value : null,
      state: !c.visible ? "unavailable" : c.inStock ? "available" : "sold-out",
    })),
  }));
}

/** The gallery: the selected choice's pictures first, then the pictures that belong to no choice. */
function galleryOf(ctx: Ctx, product: PageProduct, availability: Availability, selection: Record<string, string>): GalleryItem[] {
  const choiceMediaIds = new Set(product.productOptions.flatMap((o) => o.choices.flatMap((c) => c.media.items.map((m) => m.id))));
  const chosen = Object.keys(selection).length ? availability.media.items.filter((m) => choiceMediaIds.has(m.id)) : [];
  const galleryMedia = chosen.length ? [...chosen, ...product.media.items.filter((m) => !choiceMediaIds.has(m.id))] : product.media.items;
  return galleryMedia.map((m) => {
    if ("video" in m) {
      const file = m.video.files[0];
      return {
        id: m.id,
        kind: "video",
        url: sameSiteUrl(file.url, ctx.origin),
        alt: m.title || product.name,
        width: file.width,
        height: file.height,
        poster: sameSiteUrl(m.thumbnail.url, ctx.origin),
      };
    }
    const image = m.image;
    return {
      id: m.id,
      kind: "image",
      url: sameSiteUrl(image.url, ctx.origin),
      alt: image.altText || product.name,
      width: image.width || 800,
      height: image.height || 800,
    };
  });
}

/** The price shown: the selected variant's, or the lowest over the variants ("from"). */
function priceOf(product: PageProduct, variant: Variant) {
  const variants = product.variants ?? [];
  const lowest = [...variants].sort((a, b) => a.variant.priceData.discountedPrice - b.variant.priceData.discountedPrice)[0];
  const priceData = variant ? variant.price : (lowest?.variant.priceData ?? product.priceData);
  const varies = !variant && new Set(variants.map((v) => v.variant.priceData.discountedPrice)).size > 1;
  const ppu = product.pricePerUnitData;
  return {
    price: priceData.formatted.discountedPrice,
    compareAt: priceData.discountedPrice < priceData.price ? priceData.formatted.price : null,
    from: varies,
    perUnit:
      ppu && priceData.formatted.pricePerUnit
        ? `${priceData.formatted.pricePerUnit} / ${ppu.baseQuantity === 1 ? "" : `${ppu.baseQuantity} `}${UNITS[ppu.baseMeasurementUnit] ?? ppu.baseMeasurementUnit.toLowerCase()}`
        : null,
    discount: product.discount.type === "PERCENT" && product.discount.value > 0 ? `${product.discount.value}% off` : null,
  };
}

/** The stock state of the selected variant, of an incomplete selection, or of a combination that does not exist. */
function stockOf(product: PageProduct, variant: Variant, complete: boolean) {
  if (variant)
    return {
      state: variant.inStock ? "in-stock" : "sold-out",
      quantity: variant.inStock && typeof variant.quantity === "number" ? variant.quantity : null,
    };
  if (complete) return { state: "unavailable", quantity: null };
  return {
    state: product.stock.inStock ? (product.stock.inventoryStatus === "PARTIALLY_OUT_OF_STOCK" ? "partial" : "in-stock") : "sold-out",
    quantity: null,
  };
}

/** The page's head tags: the merchant's SEO title and description when the product has them. */
function seoOf(product: PageProduct, summary: string, canonical: string, image: string | undefined) {
  const seoTags = (product.seoData as { tags?: { type: string; props?: Record<string, unknown>; children?: string }[] }).tags ?? [];
  const description = seoTags.find((t) => t.type === "meta" && t.props?.name === "description")?.props?.content;
  const seoTitle = seoTags.find((t) => t.type === "title")?.children;
  return {
    title: seoTitle || `${product.name} — ${SHOP_NAME}`,
    description: (typeof description === "string" && description) || summary.slice(0, 160) || `${product.name} at ${SHOP_NAME}.`,
    canonical,
    type: "product" as const,
    ...(image ? { image } : {}),
  };
}

/** The schema.org Product of the page: one Offer for the selected variant, else an AggregateOffer over them all. */
function productJsonLd(product: PageProduct, variant: Variant, page: { summary: string; offerUrl: string; images: string[] }) {
  const variants = product.variants ?? [];
  const prices = variants.length ? variants.map((v) => v.variant.priceData.discountedPrice) : [product.price.discountedPrice];
  return {
    "@context": "https://schema.org",
    "@type": "Product",
    name: product.name,
    description: page.summary,
    url: page.offerUrl,
    ...(page.images.length ? { image: page.images } : {}),
    ...(product.brand ? { brand: { "@type": "Brand", name: product.brand } } : {}),
    ...(variant?.sku || product.sku ? { sku: variant?.sku || product.sku } : {}),
    offers: variant
      ? {
          "@type": "Offer",
          price: variant.price.discountedPrice.toFixed(2),
          priceCurrency: variant.price.currency,
          availability: variant.inStock ? "https://schema.org/InStock" : "https://schema.org/OutOfStock",
          url: page.offerUrl,
        }
      : {
          "@type": "AggregateOffer",
          lowPrice: Math.min(...prices).toFixed(2),
          highPrice: Math.max(...prices).toFixed(2),
          offerCount: Math.max(variants.length, 1),
          priceCurrency: product.price.currency,
          availability: product.stock.inStock ? "https://schema.org/InStock" : "https://schema.org/OutOfStock",
        },
  };
}

/** The rich description without a first paragraph that only repeats the plain one (shown beside the price). */
function withoutLead(nodes: RichNode[], plain: string): RichNode[] {
  const first = nodes[0];
  const text =
    first?.type === "PARAGRAPH" ? (first.nodes ?? []).map((n) => String((n.textData as { text?: unknown } | undefined)?.text ?? "")).join("") : null;
  return text !== null && text.trim() === plain.trim() ? nodes.slice(1) : nodes;
}

/** JSON for a <script> element: `<`, `>`, `&` and line separators escaped, so no text in it can close the element. */
function jsonLdText(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

/** The back-in-stock sign-up (intent=notify): a request for the selected variant, through the automations service. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const ctx = context.services;
  const form = await request.formData();
  const email = String(form.get("email") ?? "").trim();
  if (form.get("intent") !== "notify")
    return data({ notify: null, email, problem: { message: "This form is not one the product page knows.", fields: {} } }, { status: 400 });
  const product = await productOr404(ctx, params.slug);
  const variantId = String(form.get("variantId") ?? "");
  const itemUrl = new URL(`/products/${product.slug}${new URL(request.url).search}`, ctx.origin).href;
  try {
    await createBackInStockRequest(
      ctx,
      { email, catalogReference: { catalogItemId: product.id, options: { variantId } }, itemUrl },
      { clientAddress: clientOf(request).ip },
    );
    return { notify: { email }, email, problem: null };
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    // Problems with the email are shown next to the field; anything else (a limit, a vanished variant) above it.
    const emailViolation = err.fieldViolations?.find((v) => v.field.endsWith("email"));
    const fields: Record<string, string> = emailViolation ? { email: "Enter an email address like name@example.com." } : {};
    const message = emailViolation
      ? "Please check your email address."
      : err.fieldViolations?.[0]
        ? `Please choose the item again (${err.fieldViolations[0].description}).`
        : pageMessage(err);
    return data({ notify: null, email, problem: { message, fields } }, { status: err.status === 429 ? 429 : 400 });
  }
}

type PageData = Route.ComponentProps["loaderData"];

export default function Product({ loaderData, actionData }: Route.ComponentProps) {
  const { product, gallery, related, jsonLd } = loaderData;
  const root = useRouteLoaderData<typeof rootLoader>("root");
  return (
    <main className="page product-page">
      <Breadcrumb name={product.name} />
      <div className="product-layout">
        <div className="product-media">
          {product.ribbon && <span className="ribbon ribbon-lg">{product.ribbon}</span>}
          <Gallery items={gallery} name={product.name} />
        </div>
        <ProductInfo page={loaderData} notifyResult={actionData ?? null} />
      </div>
      {product.richNodes.length > 0 && (
        <section className="product-description" aria-labelledby="about-heading">
          <h2 id="about-heading">About this product</h2>
          <RichContent nodes={product.richNodes} />
        </section>
      )}
      <section className="related" aria-labelledby="related-heading">
        <h2 id="related-heading">You may also like</h2>
        {/* Read with the product, in its round trip: part of the page, not a streamed part (a Suspense boundary, its
            fallback and a script, for data that is already here). */}
        {related.length ? <ProductGrid cards={related} label="You may also like" /> : <p className="muted">Nothing else here yet.</p>}
      </section>
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: JSON-LD from jsonLdText, which escapes what could close the element. */}
      <script type="application/ld+json" nonce={root?.cspNonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: jsonLd }} />
    </main>
  );
}

function Breadcrumb({ name }: { name: string }) {
  return (
    <nav aria-label="Breadcrumb" className="breadcrumb">
      <ol>
        <li>
          <ShopLink to="/">Home</ShopLink>
        </li>
        <li>
          <ShopLink to="/shop">Shop</ShopLink>
        </li>
        <li aria-current="page">{name}</li>
      </ol>
    </nav>
  );
}

/** The column beside the gallery: name, price, options, stock, what the shopper can do, and the info sections. */
function ProductInfo({ page, notifyResult }: { page: PageData; notifyResult: NotifyResult }) {
  const { product, options, selection, complete, price, stock } = page;
  const navigation = useNavigation();
  const { pathname } = useLocation();
  const updating = navigation.state === "loading" && navigation.location?.pathname === pathname;
  return (
    <div className="product-info" aria-busy={updating}>
      {product.brand && <p className="product-brand">{product.brand}</p>}
      <h1>{product.name}</h1>
      <div className="product-price" aria-live="polite">
        <Price price={price.price} compareAt={price.compareAt} from={price.from} className="price price-lg" />
        {price.discount && price.compareAt && <p className="discount-badge">{price.discount}</p>}
        {price.perUnit && <p className="price-per-unit">{price.perUnit}</p>}
      </div>
      <p className="product-summary">{product.description}</p>
      {options.length > 0 && <OptionPicker options={options} selection={selection} />}
      <StockState stock={stock} complete={complete} options={options} selection={selection} />
      <Purchase page={page} notifyResult={notifyResult} />
      {product.infoSections.length > 0 && (
        <div className="info-sections">
          {product.infoSections.map((s) => (
            <details key={s.title}>
              <summary>{s.title}</summary>
              <p>{s.description}</p>
            </details>
          ))}
        </div>
      )}
    </div>
  );
}

/** Add to cart; or, when the selection is sold out, the back-in-stock sign-up (or what to choose to get one). */
function Purchase({ page, notifyResult }: { page: PageData; notifyResult: NotifyResult }) {
  const { product, options, selection, complete, variantId, stock, added } = page;
  if (stock.state === "sold-out" && variantId) return <BackInStock productName={product.name} variantId={variantId} result={notifyResult} />;
  if (stock.state === "sold-out") {
    return (
      <p className="hint">
        Choose your{" "}
        {options
          .filter((o) => !selection[o.name])
          .map((o) => o.name.toLowerCase())
          .join(" and ")}{" "}
        to get an email when it is back.
      </p>
    );
  }
  return (
    <AddToCart
      key={variantId ?? "none"}
      productId={product.id}
      variantId={variantId}
      selection={selection}
      returnTo={`/products/${product.slug}${selectionSearch(options, selection)}`}
      canAdd={complete && stock.state === "in-stock"}
      maxQuantity={stock.quantity ?? 99}
      missing={options.filter((o) => !selection[o.name]).map((o) => o.name)}
      added={added}
    />
  );
}

function StockState({
  stock,
  complete,
  options,
  selection,
}: {
  stock: { state: string; quantity: number | null };
  complete: boolean;
  options: PickerOption[];
  selection: Record<string, string>;
}) {
  let text: string;
  if (stock.state === "sold-out") text = complete ? "Sold out" : "Sold out in every option";
  else if (stock.state === "unavailable") text = "This combination is not available. Choose another.";
  else if (stock.state === "partial") text = "In stock in some options";
  else if (stock.quantity !== null && stock.quantity <= 5) text = `Only ${stock.quantity} left`;
  else text = "In stock";
  const chosen = options.filter((o) => selection[o.name]).map((o) => selection[o.name]);
  return (
    <p className={`stock stock-${stock.state}`} role="status">
      {text}
      {complete && chosen.length > 0 && <span className="visually-hidden"> ({chosen.join(", ")})</span>}
    </p>
  );
}

/**
 * Add to cart: a plain POST to /cart (works without JavaScript; the cart page's action adds the item and comes back
 * here with ?added=1). With JavaScript it goes through a fetcher, so the page stays and the header's count updates.
 */
function AddToCart(props: {
  productId: string;
  variantId: string | null;
  selection: Record<string, string>;
  returnTo: string;
  canAdd: boolean;
  maxQuantity: number;
  missing: string[];
  added: boolean;
}) {
  const fetcher = useFetcher<{ intent?: string; problem?: { message?: string } | null }>();
  const quantityId = useId();
  const busy = fetcher.state !== "idle";
  const failed = fetcher.data?.problem?.message ?? null;
  const addedNow = fetcher.state === "idle" && fetcher.data?.intent === "add" && !fetcher.data.problem;
  // With JavaScript the cart's action answers a fetcher with data (`_js=1`) instead of redirecting.
  const onSubmit = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    form.set("_js", "1");
    fetcher.submit(form, { method: "post", action: "/cart", preventScrollReset: true });
  };
  return (
    <form method="post" action="/cart" className="add-to-cart" onSubmit={onSubmit}>
      <input type="hidden" name="intent" value="add" />
      <input type="hidden" name="productId" value={props.productId} />
      {props.variantId && <input type="hidden" name="variantId" value={props.variantId} />}
      {Object.entries(props.selection).map(([name, choice]) => (
        <input key={name} type="hidden" name={`option.${name}`} value={choice} />
      ))}
      <input type="hidden" name="returnTo" value={props.returnTo} />
      <div className="quantity">
        <label htmlFor={quantityId}>Quantity</label>
        <input
          id={quantityId}
          type="number"
          name="quantity"
          min={1}
          max={Math.max(1, Math.min(props.maxQuantity, 99))}
          defaultValue={1}
          inputMode="numeric"
          required
        />
      </div>
      <button
        type="submit"
        className="button button-primary"
        disabled={!props.canAdd || busy}
        aria-describedby={props.missing.length ? `${quantityId}-hint` : undefined}
      >
        {busy ? "Adding…" : "Add to cart"}
      </button>
      {props.missing.length > 0 && (
        <p id={`${quantityId}-hint`} className="hint">
          Choose a {props.missing.join(" and a ").toLowerCase()} first.
        </p>
      )}
      <div role="status" className="add-result">
        {failed ? (
          <p className="field-error">{failed}</p>
        ) : (addedNow || props.added) && !busy ? (
          <p className="form-success">
            Added to your cart. <ShopLink to="/cart">View cart</ShopLink>
          </p>
        ) : null}
      </div>
    </form>
  );
}

type NotifyResult = { notify: { email: string } | null; email?: string; problem: { message: string; fields: Record<string, string> } | null } | null;

/** The back-in-stock sign-up, shown when the selected item is sold out. */
function BackInStock({ productName, variantId, result }: { productName: string; variantId: string | null; result: NotifyResult }) {
  const emailId = useId();
  const fieldError = result?.problem?.fields.email ?? null;
  const formError = result?.problem && !fieldError ? result.problem.message : null;
  if (result?.notify) {
    return (
      <div className="back-in-stock form-success" role="status">
        <p>
          Thanks — we will email <strong>{result.notify.email}</strong> when {productName} is back in stock.
        </p>
      </div>
    );
  }
  return (
    <Form method="post" className="back-in-stock" preventScrollReset>
      <h2 className="h3">Get an email when it is back</h2>
      {formError && (
        <p className="form-error" role="alert">
          {formError}
        </p>
      )}
      <input type="hidden" name="intent" value="notify" />
      {variantId && <input type="hidden" name="variantId" value={variantId} />}
      <div className="field">
        <label htmlFor={emailId}>Email</label>
        <input
          id={emailId}
          type="email"
          name="email"
          autoComplete="email"
          required
          maxLength={254}
          defaultValue={result?.email}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? `${emailId}-error` : undefined}
        />
        {fieldError && (
          <p id={`${emailId}-error`} className="field-error">
            {fieldError}
          </p>
        )}
      </div>
      <button type="submit" className="button">
        Notify me
      </button>
    </Form>
  );
}
