import { formatMoney, toDecimalString, toMajor } from "#worker/platform/money";
import { discountedPrice, pricePerUnit, profitOf, type DiscountType } from "./pricing";
import type { collections, products, StoredMedia } from "./tables";
import { richToDescription } from "./rich-text";
import type { RichNode } from "./schemas";
import { choiceAvailability, variantInStock, type VariantRow } from "./variants";

/**
 * Wire shapes of the catalogue, built from rows: V1 (the Wix Stores V1 REST shape the SDK reads) and V3.
 * Catalogue money is a JSON float in V1 and a decimal string in V3. Merchant-only fields (cost, profit,
 * hidden variants) appear only when `merchant` is set.
 */

export type ProductRow = typeof products.$inferSelect;
export type CollectionRow = typeof collections.$inferSelect;

export interface ShapeOptions {
  currency: string;
  /** Origin used to make media URLs absolute (e.g. "https://shop.example"). */
  origin: string;
  merchant: boolean;
}

export interface LoadedProduct {
  row: ProductRow;
  variants: VariantRow[];
  collectionIds: string[];
}

function absolute(url: string, origin: string): string {
  return url.startsWith("/") ? origin + url : url;
}

function v1MediaItem(m: StoredMedia, origin: string) {
  const url = absolute(m.url, origin);
  const thumb = absolute(m.thumbnailUrl ?? m.url, origin);
  const base = { id: m.id, title: m.title ?? "", mediaType: m.mediaType, thumbnail: { url: thumb, width: 50, height: 50 } };
  if (m.mediaType === "video") {
    return { ...base, video: { files: [{ url, width: m.width, height: m.height, format: "mp4" }], stillFrameMediaId: m.id } };
  }
  return { ...base, image: { url, width: m.width, height: m.height, altText: m.altText ?? null } };
}

function v1MediaBlock(items: StoredMedia[], origin: string) {
  const shaped = items.map((m) => v1MediaItem(m, origin));
  return { mainMedia: shaped[0] ?? null, items: shaped };
}

/** The price block (price, priceData, convertedPriceData share it). */
function priceBlock(row: ProductRow, base: number, currency: string) {
  const actual = discountedPrice(base, row.discountType as DiscountType, row.discountValue, currency);
  const perUnit = row.pricePerUnitData ? pricePerUnit(actual, row.pricePerUnitData) : undefined;
  return {
    currency,
    price: toMajor(base, currency),
    discountedPrice: toMajor(actual, currency),
    ...(perUnit !== undefined ? { pricePerUnit: toMajor(perUnit, currency) } : {}),
    formatted: {
      price: formatMoney(base, currency),
      discountedPrice: formatMoney(actual, currency),
      ...(perUnit !== undefined ? { pricePerUnit: formatMoney(perUnit, currency) } : {}),
    },
  };
}

function costBlock(row: ProductRow, price: number, cost: number | null, currency: string) {
  const actual = discountedPrice(price, row.discountType as DiscountType, row.discountValue, currency);
  const c = cost ?? 0;
  const { profit, profitMargin } = profitOf(actual, c);
  return {
    itemCost: toMajor(c, currency),
    formattedItemCost: formatMoney(c, currency),
    profit: toMajor(profit, currency),
    formattedProfit: formatMoney(profit, currency),
    profitMargin,
  };
}

function range(values: number[]) {
  return values.length ? { minValue: Math.min(...values), maxValue: Math.max(...values) } : { minValue: 0, maxValue: 0 };
}

function stockOf(row: ProductRow, variants: VariantRow[]) {
  const visible = variants.filter((v) => v.visible);
  const inStockCount = visible.filter((v) => variantInStock(v, row.trackInventory)).length;
  const inventoryStatus = inStockCount === 0 ? "OUT_OF_STOCK" : inStockCount === visible.length ? "IN_STOCK" : "PARTIALLY_OUT_OF_STOCK";
  return {
    trackInventory: row.trackInventory,
    ...(row.trackInventory ? { quantity: visible.reduce((n, v) => n + (v.quantity ?? 0), 0) } : {}),
    inStock: inStockCount > 0,
    inventoryStatus,
  };
}

/** One variant in the V1 shape (`variants[]` of a product, the per-product variants query). */
export function v1Variant(row: ProductRow, v: VariantRow, opts: ShapeOptions) {
  const price = v.price ?? row.price;
  const pb = priceBlock(row, price, opts.currency);
  return {
    id: v.id,
    choices: v.choices,
    variant: {
      priceData: pb,
      convertedPriceData: pb,
      ...(opts.merchant ? { costAndProfitData: costBlock(row, price, v.cost ?? row.cost, opts.currency) } : {}),
      weight: v.weight ?? row.weight ?? 0,
      sku: v.sku ?? row.sku ?? "",
      visible: v.visible,
    },
    stock: {
      trackQuantity: row.trackInventory,
      ...(row.trackInventory ? { quantity: v.quantity ?? 0 } : {}),
      inStock: variantInStock(v, row.trackInventory),
    },
  };
}

/** V1 product options with each choice's availability and media. */
export function v1Options(p: LoadedProduct, opts: ShapeOptions, selection: Record<string, string> = {}) {
  const { row } = p;
  const availability = choiceAvailability(row.productOptions, p.variants, selection, row.trackInventory);
  const mediaById = new Map(row.media.map((m) => [m.id, m]));
  return row.productOptions.map((o) => ({
    optionType: o.optionType,
    name: o.name,
    choices: o.choices
      .filter((c) => opts.merchant || c.visible)
      .map((c) => {
        const a = availability.get(`${o.name}\u0000${c.description}`) ?? { visible: false, inStock: false };
        const media = c.mediaIds.map((id) => mediaById.get(id)).filter((m): m is StoredMedia => !!m);
        return { value: c.value, description: c.description, inStock: a.inStock, visible: a.visible, media: v1MediaBlock(media, opts.origin) };
      }),
  }));
}

/** The V1 `description`: HTML made from the rich description (or its plain text when that says the same). */
export function v1Description(row: Pick<ProductRow, "description" | "richDescription">): string {
  return row.richDescription ? richToDescription(row.richDescription.nodes as RichNode[]) : row.description;
}

/** A product in the V1 shape. */
export function v1Product(p: LoadedProduct, opts: ShapeOptions, includeVariants = true) {
  const { row, currency } = { row: p.row, currency: opts.currency };
  const variants = opts.merchant ? p.variants : p.variants.filter((v) => v.visible);
  const pb = priceBlock(row, row.price, currency);
  const variantPrices = variants.map((v) => toMajor(v.price ?? row.price, currency));
  const variantWeights = variants.map((v) => v.weight ?? row.weight ?? 0);
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    visible: row.visible,
    productType: row.productType,
    description: v1Description(row),
    sku: row.sku ?? "",
    weight: row.weight ?? 0,
    weightRange: range(variantWeights.length ? variantWeights : [row.weight ?? 0]),
    stock: stockOf(row, p.variants),
    price: pb,
    priceData: pb,
    convertedPriceData: pb,
    priceRange: range(variantPrices.length ? variantPrices : [toMajor(row.price, currency)]),
    ...(opts.merchant
      ? {
          costAndProfitData: costBlock(row, row.price, row.cost, currency),
          costRange: range(variants.map((v) => toMajor(v.cost ?? row.cost ?? 0, currency))),
        }
      : {}),
    ...(row.pricePerUnitData ? { pricePerUnitData: row.pricePerUnitData } : {}),
    additionalInfoSections: row.infoSections.map((s) => ({ title: s.title, description: s.description })),
    ribbons: row.ribbon ? [{ text: row.ribbon }] : [],
    ribbon: row.ribbon ?? "",
    brand: row.brand ?? "",
    media: v1MediaBlock(row.media, opts.origin),
    customTextFields: [],
    manageVariants: row.manageVariants,
    productOptions: v1Options(p, opts),
    productPageUrl: { base: `${opts.origin}/`, path: `/products/${row.slug}` },
    numericId: String(row.numericId),
    inventoryItemId: row.id,
    discount: { type: row.discountType, value: row.discountValue },
    collectionIds: p.collectionIds,
    ...(includeVariants ? { variants: variants.map((v) => v1Variant(row, v, opts)) } : {}),
    seoData: row.seoData ?? { tags: [], settings: { preventAutoRedirect: false, keywords: [] } },
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    lastUpdated: row.lastUpdated,
  };
}

/** A variant of the store-wide variants query (`/v1/variants/query`, `/v1/variants/{id}`). */
export function storeVariant(p: LoadedProduct, v: VariantRow, opts: ShapeOptions) {
  const { row } = p;
  const shaped = v1Variant(row, v, opts);
  const choiceMedia = row.productOptions
    .flatMap((o) => o.choices.filter((c) => v.choices[o.name] === c.description).flatMap((c) => c.mediaIds))
    .map((id) => row.media.find((m) => m.id === id))
    .find((m): m is StoredMedia => !!m && m.mediaType === "image");
  const image = choiceMedia ?? row.media.find((m) => m.mediaType === "image");
  return {
    id: `${row.id}-${v.id}`,
    variantId: v.id,
    productId: row.id,
    variantName: Object.values(v.choices).join(" | "),
    productName: row.name,
    managedVariant: row.manageVariants,
    choices: v.choices,
    variant: shaped.variant,
    stock: shaped.stock,
    media: image
      ? { image: { id: image.id, url: absolute(image.url, opts.origin), width: image.width, height: image.height, altText: image.altText ?? null } }
      : {},
    preorderInfo: { enabled: false },
  };
}

function v3Money(minor: number, currency: string) {
  return { amount: toDecimalString(minor, currency), formattedAmount: formatMoney(minor, currency) };
}

function v3Media(m: StoredMedia, origin: string) {
  const url = absolute(m.url, origin);
  return m.mediaType === "video"
    ? {
        id: m.id,
        displayName: m.title ?? "",
        mediaType: "VIDEO",
        video: { id: m.id, resolutions: [{ url, width: m.width, height: m.height, format: "mp4" }] },
        thumbnail: { url: absolute(m.thumbnailUrl ?? m.url, origin), width: 50, height: 50 },
      }
    : {
        id: m.id,
        displayName: m.title ?? "",
        altText: m.altText ?? "",
        mediaType: "IMAGE",
        image: { id: m.id, url, width: m.width, height: m.height, altText: m.altText ?? "" },
        url,
      };
}

/** A product in the V3 shape, from the same rows. */
export function v3Product(p: LoadedProduct, opts: ShapeOptions) {
  const { row } = p;
  const { currency } = opts;
  const variants = opts.merchant ? p.variants : p.variants.filter((v) => v.visible);
  const actualPrices = variants.map((v) => actualPrice(row, v, currency));
  const basePrices = variants.map((v) => v.price ?? row.price);
  const minVariant = [...variants].sort((a, b) => actualPrice(row, a, currency) - actualPrice(row, b, currency))[0];
  const stock = stockOf(row, p.variants);
  const nodes = row.richDescription?.nodes ?? [];
  const weights = variants.map((v) => v.weight ?? row.weight ?? 0);
  return {
    id: row.id,
    revision: row.updatedDate,
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    name: row.name,
    slug: row.slug,
    url: { relativePath: `/products/${row.slug}`, url: `${opts.origin}/products/${row.slug}` },
    plainDescription: row.description,
    description: {
      nodes,
      metadata: { version: 1, createdTimestamp: row.createdDate, updatedTimestamp: row.updatedDate, id: row.id },
    },
    visible: row.visible,
    visibleInPos: row.visible,
    productType: row.productType === "digital" ? "DIGITAL" : "PHYSICAL",
    media: { main: row.media[0] ? v3Media(row.media[0], opts.origin) : null, itemsInfo: { items: row.media.map((m) => v3Media(m, opts.origin)) } },
    seoData: row.seoData ?? { tags: [], settings: { preventAutoRedirect: false, keywords: [] } },
    infoSections: row.infoSections.map(v3InfoSection),
    ...(row.brand ? { brand: { name: row.brand } } : {}),
    ...(row.ribbon ? { ribbon: { name: row.ribbon } } : {}),
    options: v3Options(p, opts),
    modifiers: [],
    physicalProperties: {
      ...(row.pricePerUnitData
        ? { pricePerUnit: { settings: { quantity: row.pricePerUnitData.totalQuantity, measurementUnit: row.pricePerUnitData.totalMeasurementUnit } } }
        : {}),
      shippingWeightRange: range(weights.length ? weights : [row.weight ?? 0]),
    },
    ...(row.pricePerUnitData
      ? { pricePerUnit: { quantity: row.pricePerUnitData.baseQuantity, measurementUnit: row.pricePerUnitData.baseMeasurementUnit } }
      : {}),
    actualPriceRange: {
      minValue: v3Money(Math.min(...(actualPrices.length ? actualPrices : [row.price])), currency),
      maxValue: v3Money(Math.max(...(actualPrices.length ? actualPrices : [row.price])), currency),
    },
    compareAtPriceRange: {
      minValue: v3Money(Math.min(...(basePrices.length ? basePrices : [row.price])), currency),
      maxValue: v3Money(Math.max(...(basePrices.length ? basePrices : [row.price])), currency),
    },
    currency,
    inventory: {
      availabilityStatus: stock.inventoryStatus,
      preorderStatus: "DISABLED",
      preorderAvailability: "NO_VARIANTS",
    },
    variantSummary: { variantCount: variants.length },
    variantsInfo: { variants: variants.map((v) => v3Variant(row, v, opts)) },
    minVariantPriceInfo: minVariant ? v3MinVariantPriceInfo(row, minVariant, opts) : null,
    directCategoriesInfo: { categories: p.collectionIds.map((id) => ({ id })) },
    subscriptionDetails: { subscriptions: [] },
  };
}

/** A variant's price after the product's discount, minor units. */
function actualPrice(row: ProductRow, v: VariantRow, currency: string): number {
  return discountedPrice(v.price ?? row.price, row.discountType as DiscountType, row.discountValue, currency);
}

/** One variant in the V3 shape (cost and profit for the merchant only). */
function v3Variant(row: ProductRow, v: VariantRow, opts: ShapeOptions) {
  const { currency } = opts;
  const price = actualPrice(row, v, currency);
  const cost = v.cost ?? row.cost;
  const discounted = row.discountType !== "NONE" && row.discountValue > 0;
  return {
    id: v.id,
    visible: v.visible,
    sku: v.sku ?? row.sku ?? "",
    choices: row.productOptions.map((o) => ({
      optionChoiceIds: { optionId: o.id, choiceId: `${o.id}:${v.choices[o.name]}` },
      optionChoiceNames: {
        optionName: o.name,
        choiceName: v.choices[o.name],
        renderType: o.optionType === "color" ? "SWATCH_CHOICES" : "TEXT_CHOICES",
      },
    })),
    price: {
      actualPrice: v3Money(price, currency),
      ...(discounted ? { compareAtPrice: v3Money(v.price ?? row.price, currency) } : {}),
    },
    physicalProperties: {
      weight: v.weight ?? row.weight ?? 0,
      ...(row.pricePerUnitData
        ? {
            pricePerUnit: {
              settings: { quantity: row.pricePerUnitData.totalQuantity, measurementUnit: row.pricePerUnitData.totalMeasurementUnit },
              value: toDecimalString(pricePerUnit(price, row.pricePerUnitData), currency),
            },
          }
        : {}),
    },
    ...(opts.merchant && cost !== null
      ? {
          revenueDetails: {
            cost: v3Money(cost, currency),
            profit: v3Money(price - cost, currency),
            profitMargin: profitOf(price, cost).profitMargin,
          },
        }
      : {}),
    inventoryStatus: { inStock: variantInStock(v, row.trackInventory), preorderEnabled: false },
    ...(row.trackInventory ? { inventory: { quantity: v.quantity ?? 0 } } : {}),
  };
}

/** An info section in the V3 shape: its text as one paragraph. */
function v3InfoSection(s: ProductRow["infoSections"][number]) {
  return {
    id: s.id,
    uniqueName: s.title.toLowerCase().replace(/[^a-z0-9]+/g, "-"),
    title: s.title,
    plainDescription: s.description,
    description: {
      nodes: [
        {
          type: "PARAGRAPH",
          id: `${s.id}-p`,
          nodes: [{ type: "TEXT", id: "", textData: { text: s.description, decorations: [] } }],
          paragraphData: {},
        },
      ],
    },
  };
}

/** The product's options in the V3 shape, each choice with its availability and linked media. */
function v3Options(p: LoadedProduct, opts: ShapeOptions) {
  const { row } = p;
  const mediaById = new Map(row.media.map((m) => [m.id, m]));
  const availability = choiceAvailability(row.productOptions, p.variants, {}, row.trackInventory);
  return row.productOptions.map((o) => ({
    id: o.id,
    name: o.name,
    optionRenderType: o.optionType === "color" ? "SWATCH_CHOICES" : "TEXT_CHOICES",
    choicesSettings: {
      choices: o.choices
        .filter((c) => opts.merchant || c.visible)
        .map((c) => {
          const a = availability.get(`${o.name}\u0000${c.description}`) ?? { visible: false, inStock: false };
          const linked = c.mediaIds.map((id) => mediaById.get(id)).filter((m): m is StoredMedia => !!m);
          return {
            choiceId: `${o.id}:${c.description}`,
            choiceType: o.optionType === "color" ? "ONE_COLOR" : "CHOICE_TEXT",
            key: c.description.toLowerCase(),
            name: c.description,
            ...(o.optionType === "color" ? { colorCode: c.value } : {}),
            inStock: a.inStock,
            visible: a.visible,
            ...(linked[0]?.mediaType === "image"
              ? { image: { id: linked[0].id, url: absolute(linked[0].url, opts.origin), width: linked[0].width, height: linked[0].height } }
              : {}),
            linkedMedia: linked.map((m) => v3Media(m, opts.origin)),
          };
        }),
    },
  }));
}

/** The price information of the cheapest variant. */
function v3MinVariantPriceInfo(row: ProductRow, minVariant: VariantRow, opts: ShapeOptions) {
  const { currency } = opts;
  const v = v3Variant(row, minVariant, opts);
  return {
    actualPrice: v.price.actualPrice,
    ...(v.price.compareAtPrice ? { compareAtPrice: v.price.compareAtPrice, basePrice: v.price.compareAtPrice } : {}),
    weight: v.physicalProperties.weight,
    ...(row.pricePerUnitData
      ? {
          pricePerUnitData: {
            value: toDecimalString(pricePerUnit(actualPrice(row, minVariant, currency), row.pricePerUnitData), currency),
            description: `per ${row.pricePerUnitData.baseQuantity} ${row.pricePerUnitData.baseMeasurementUnit}`,
          },
        }
      : {}),
    ...("revenueDetails" in v ? { revenueDetails: v.revenueDetails } : {}),
  };
}

/** A collection in the V1/V2 shape. `numberOfProducts` is counted by the query that loaded it. */
export function collectionShape(row: CollectionRow, numberOfProducts: number, origin: string) {
  const media = row.media
    ? {
        id: row.id,
        mediaType: "image",
        title: row.name,
        image: {
          url: absolute(row.media.url, origin),
          width: row.media.width ?? 800,
          height: row.media.height ?? 800,
          altText: row.media.altText ?? row.name,
        },
      }
    : null;
  return {
    id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    visible: row.visible,
    numberOfProducts,
    media: { mainMedia: media, items: media ? [media] : [] },
    createdDate: row.createdDate,
    updatedDate: row.updatedDate,
    lastUpdated: row.updatedDate,
  };
}
