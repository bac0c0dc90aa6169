import { eq, sql } from "drizzle-orm";
import { commit, newEvent, outboxInsert, outboxInsertIfChanged, type EventEnvelope, type Statement } from "#worker/events";
import { EventType } from "#worker/events";
import { clearAssertions, isUniqueViolation } from "#worker/platform/batch";
import { nowIso, type Ctx, requirePermission } from "#worker/platform/context";
import { ApiError, invalidArgument, notFound, type FieldViolation } from "#worker/platform/errors";
import { ALL_PRODUCTS_COLLECTION_ID, newId, slugify } from "#worker/platform/ids";
import { toMajor, toMinor } from "#worker/platform/money";
import type { ProductInput, ProductPatch } from "./schemas";
import { manualStockChange } from "./stock-changes";
import { freeSlug } from "./slugs";
import { releaseUnusedMedia } from "./media";
import { descriptionToPlain, descriptionToRich } from "./rich-text";
import { richToPlain } from "./rich-text-plain";
import { v1Product, type LoadedProduct, type ProductRow } from "./shapes";
import { collectionProducts, productNumbers, products } from "./tables";
import { combinationCount, MAX_VARIANTS, planVariants, type VariantRow } from "./variants";
import { applyOverrides, checkCommon, linkChoiceMedia, ownVariantData, storedMedia, storedOptions } from "./product-input";
import { refreshSummary, shapeOptions } from "./product-reads";
import {
  expectVersion,
  insertVariants,
  loadForWrite,
  nextStamp,
  variantsChangedEvent,
  variantStatements,
  writeAndLoad,
  writeProductColumns,
} from "./product-store";

/** Creating, changing, copying and deleting products. */

export interface PreparedProduct {
  row: ProductRow;
  variants: VariantRow[];
  statements: Statement[];
  events: EventEnvelope[];
}

/** Builds the rows, statements and event of a new product without running them (used by create and the demo loader). */
export function prepareCreateProduct(ctx: Ctx, input: ProductInput, slug: string): PreparedProduct {
  const violations: FieldViolation[] = [];
  const { currency } = ctx;
  const options = storedOptions(input.productOptions ?? [], [], violations);
  if (combinationCount(options) > MAX_VARIANTS)
    violations.push({ field: "product.productOptions", description: `make more than ${MAX_VARIANTS} variants`, violatedRule: "MAX_SIZE", data: {} });
  checkCommon(input, violations);
  const manageVariants = input.manageVariants ?? false;
  if (input.variants?.some(ownVariantData) && !manageVariants)
    violations.push({
      field: "product.manageVariants",
      description: "must be true to give variants their own data",
      violatedRule: "VALIDATION",
      data: {},
    });
  if (violations.length) throw invalidArgument(violations);

  const media = (input.media ?? []).map(storedMedia);
  linkChoiceMedia(options, media, input.media ?? [], "product.media", violations);
  const trackInventory = input.stock?.trackInventory ?? input.stock?.quantity !== undefined;
  const id = newId();
  const now = nowIso();
  const { add: variantRows } = planVariants(id, options, [], {
    quantity: trackInventory ? (input.stock?.quantity ?? 0) : null,
    inStock: input.stock?.inStock ?? true,
  });
  applyOverrides(variantRows, input.variants ?? [], trackInventory, currency, "product.variants", violations);
  if (violations.length) throw invalidArgument(violations);

  // The rich description when given, else the description read as HTML or Markdown; the plain text is the given
  // description's own when both are given (a summary beside a longer rich text), else the rich description's.
  const richDescription = input.richDescription ?? descriptionToRich(input.description ?? "");
  const description =
    input.richDescription && input.description !== undefined ? descriptionToPlain(input.description) : richToPlain(richDescription.nodes);
  const row = {
    id,
    numericId: 0,
    slug,
    name: input.name,
    productType: input.productType,
    description,
    richDescription: richDescription as { nodes: unknown[] },
    sku: input.sku || null,
    visible: input.visible,
    price: toMinor(input.priceData.price, currency),
    cost: input.costAndProfitData ? toMinor(input.costAndProfitData.itemCost, currency) : null,
    weight: input.weight ?? null,
    discountType: input.discount?.type ?? "NONE",
    discountValue: input.discount?.value ?? 0,
    pricePerUnitData: input.pricePerUnitData ?? null,
    brand: input.brand || null,
    ribbon: input.ribbon || null,
    manageVariants,
    trackInventory,
    productOptions: options,
    media,
    infoSections: (input.additionalInfoSections ?? []).map((s) => ({ id: newId(), title: s.title, description: s.description })),
    seoData: (input.seoData as Record<string, unknown> | undefined) ?? null,
    minPrice: 0,
    maxPrice: 0,
    inStock: true,
    quantity: null,
    variantSkus: "",
    createdDate: now,
    updatedDate: now,
    lastUpdated: now,
  } satisfies ProductRow;
  const event = newEvent(ctx, EventType.productCreated, id, {
    productId: id,
    name: row.name,
    slug: row.slug,
    visible: row.visible,
    productType: row.productType,
    price: { currency, price: input.priceData.price },
    ...(input.costAndProfitData ? { costAndProfitData: { itemCost: input.costAndProfitData.itemCost } } : {}),
  });
  const { numericId: _n, ...insertable } = row;
  const statements: Statement[] = [
    // Take the next number, then use it in the same batch (the statements run in order on one connection).
    ctx.db.insert(productNumbers).values({}),
    ctx.db.insert(products).values({ ...insertable, numericId: sql`last_insert_rowid()` }),
    ...insertVariants(ctx.db, variantRows),
    refreshSummary(ctx.db, [id], currency),
    outboxInsert(ctx.db, event),
  ];
  return { row, variants: variantRows, statements, events: [event] };
}

/** Creates a product with its generated variants. */
export async function createProduct(ctx: Ctx, input: ProductInput) {
  requirePermission(ctx, "catalog.write");
  const slug = input.slug ?? (await freeSlug(ctx.db, products, slugify(input.name)));
  const prepared = prepareCreateProduct(ctx, input, slug);
  const loaded = await writeAndLoad(ctx, prepared.row.id, prepared.statements, prepared.events);
  return v1Product(loaded, shapeOptions(ctx, true));
}

/**
 * Creates several prepared products in one D1 batch, their events flushed together (the CSV import's new products).
 * A slug taken meanwhile fails the whole batch with 409 DUPLICATE_SLUG and writes nothing.
 */
export async function createPreparedProducts(ctx: Ctx, prepared: readonly PreparedProduct[]): Promise<void> {
  requirePermission(ctx, "catalog.write");
  if (!prepared.length) return;
  try {
    await commit(
      ctx,
      prepared.flatMap((p) => p.statements),
      prepared.flatMap((p) => p.events),
    );
  } catch (err) {
    if (isUniqueViolation(err, "products.slug"))
      throw new ApiError(409, "DUPLICATE_SLUG", "Another product already uses this slug", { message: "Slug already in use" });
    throw err;
  }
}

/** The product row a patch makes (not yet written), and the wire names of the fields that changed. */
function patchedRow(
  before: ProductRow,
  patch: ProductPatch,
  currency: string,
  violations: FieldViolation[],
): { row: ProductRow; changed: Set<string> } {
  const row: ProductRow = { ...before, productOptions: structuredClone(before.productOptions), media: [...before.media] };
  const changed = new Set<string>();
  const set = <K extends keyof ProductRow>(key: K, value: ProductRow[K], wireName: string) => {
    if (JSON.stringify(row[key]) !== JSON.stringify(value)) changed.add(wireName);
    row[key] = value;
  };

  if (patch.name !== undefined) set("name", patch.name, "name");
  if (patch.slug !== undefined) set("slug", patch.slug, "slug");
  if (patch.productType !== undefined) set("productType", patch.productType, "productType");
  if (patch.richDescription !== undefined) {
    set("richDescription", patch.richDescription, "richDescription");
    set(
      "description",
      patch.description !== undefined ? descriptionToPlain(patch.description) : richToPlain(patch.richDescription.nodes),
      "description",
    );
  } else if (patch.description !== undefined) {
    const rich = descriptionToRich(patch.description);
    set("richDescription", rich as { nodes: unknown[] }, "richDescription");
    set("description", richToPlain(rich.nodes), "description");
  }
  if (patch.sku !== undefined) set("sku", patch.sku || null, "sku");
  if (patch.visible !== undefined) set("visible", patch.visible, "visible");
  if (patch.weight !== undefined) set("weight", patch.weight, "weight");
  if (patch.priceData !== undefined) set("price", toMinor(patch.priceData.price, currency), "priceData");
  if (patch.costAndProfitData !== undefined) set("cost", toMinor(patch.costAndProfitData.itemCost, currency), "costAndProfitData");
  if (patch.discount !== undefined) {
    // null clears the discount.
    set("discountType", patch.discount?.type ?? "NONE", "discount");
    set("discountValue", patch.discount?.value ?? 0, "discount");
  }
  if (patch.pricePerUnitData !== undefined) set("pricePerUnitData", patch.pricePerUnitData, "pricePerUnitData");
  if (patch.brand !== undefined) set("brand", patch.brand || null, "brand");
  if (patch.ribbon !== undefined) set("ribbon", patch.ribbon || null, "ribbon");
  if (patch.manageVariants !== undefined) set("manageVariants", patch.manageVariants, "manageVariants");
  if (patch.additionalInfoSections !== undefined) {
    set(
      "infoSections",
      patch.additionalInfoSections.map((s) => ({ id: before.infoSections.find((o) => o.title === s.title)?.id ?? newId(), ...s })),
      "additionalInfoSections",
    );
  }
  if (patch.seoData !== undefined) set("seoData", patch.seoData as Record<string, unknown>, "seoData");
  // As at create, a quantity without trackInventory turns tracking on (rather than being silently dropped).
  const trackInventory = patch.stock?.trackInventory ?? (patch.stock?.quantity !== undefined ? true : undefined);
  if (trackInventory !== undefined) set("trackInventory", trackInventory, "stock");
  checkCommon({ pricePerUnitData: patch.pricePerUnitData ?? undefined, discount: patch.discount }, violations);

  if (patch.productOptions !== undefined) {
    const options = storedOptions(patch.productOptions, before.productOptions, violations);
    if (combinationCount(options) > MAX_VARIANTS)
      violations.push({
        field: "product.productOptions",
        description: `make more than ${MAX_VARIANTS} variants`,
        violatedRule: "MAX_SIZE",
        data: {},
      });
    // Media ids linked to choices must still exist.
    set("productOptions", options, "productOptions");
  }
  if (patch.media !== undefined) {
    const media = patch.media.map(storedMedia);
    for (const o of row.productOptions) for (const c of o.choices) c.mediaIds = [];
    linkChoiceMedia(row.productOptions, media, patch.media, "product.media", violations);
    set("media", media, "media");
  }
  return { row, changed };
}

/** The variant rows a patch makes: regenerated when options changed, then its stock and overrides applied. */
function patchedVariants(current: LoadedProduct, row: ProductRow, patch: ProductPatch, currency: string, violations: FieldViolation[]): VariantRow[] {
  const before = current.row;
  const id = before.id;
  let rows = current.variants.map((v) => ({ ...v }));
  if (patch.productOptions !== undefined) {
    const plan = planVariants(id, row.productOptions, rows, {
      quantity: row.trackInventory ? (patch.stock?.quantity ?? 0) : null,
      inStock: patch.stock?.inStock ?? true,
    });
    rows = [...plan.keep, ...plan.add].sort((a, b) => a.position - b.position);
  }
  if (patch.stock) {
    for (const v of rows) {
      if (row.trackInventory && patch.stock.quantity !== undefined) v.quantity = patch.stock.quantity;
      if (row.trackInventory && v.quantity === null) v.quantity = 0;
      if (!row.trackInventory) v.quantity = null;
      if (patch.stock.inStock !== undefined) v.inStock = patch.stock.inStock;
    }
  }
  if (before.manageVariants && !row.manageVariants) {
    // Variants stop having their own data: they take the product's again (as resetToDefault does).
    for (const v of rows) Object.assign(v, { price: null, cost: null, weight: null, sku: null, visible: true });
  }
  if (patch.variants?.length) {
    if (!row.manageVariants && patch.variants.some(ownVariantData))
      violations.push({
        field: "product.manageVariants",
        description: "must be true to give variants their own data",
        violatedRule: "VALIDATION",
        data: {},
      });
    applyOverrides(rows, patch.variants, row.trackInventory, currency, "product.variants", violations);
  }
  return rows;
}

/** Updates any subset of a product's fields. Changing options regenerates variants, keeping matching ones. */
export async function updateProduct(ctx: Ctx, id: string, patch: ProductPatch) {
  // Setting quantities or in-stock flags of an existing product is a stock change, as it is through the inventory calls.
  if (patch.stock?.quantity !== undefined || patch.stock?.inStock !== undefined || patch.variants?.some((v) => v.stock))
    requirePermission(ctx, "inventory.write");
  const current = await loadForWrite(ctx, id);
  if (patch.stock?.trackInventory !== undefined && patch.stock.trackInventory !== current.row.trackInventory)
    requirePermission(ctx, "inventory.write");
  const { currency } = ctx;
  const violations: FieldViolation[] = [];
  const before = current.row;
  const { row, changed } = patchedRow(before, patch, currency, violations);
  if (violations.length) throw invalidArgument(violations);
  const rows = patchedVariants(current, row, patch, currency, violations);
  if (violations.length) throw invalidArgument(violations);
  if (patch.slug !== undefined && patch.slug !== before.slug) {
    const free = await freeSlug(ctx.db, products, patch.slug, id);
    if (free !== patch.slug)
      throw new ApiError(409, "DUPLICATE_SLUG", `Another product already uses the slug "${patch.slug}"`, { message: "Slug already in use" });
  }

  const variantChange = variantStatements(ctx, current.variants, rows);
  if (variantChange.changed.length || variantChange.removed.length) changed.add("variants");
  // Nothing differs: no new version and no ProductChanged event with an empty field list.
  if (!changed.size) return v1Product(current, shapeOptions(ctx, true));
  const stamp = nextStamp(before.updatedDate);
  const { id: _id, numericId: _nid, createdDate: _c, minPrice: _a, maxPrice: _b, inStock: _s, quantity: _q, variantSkus: _k, ...fields } = row;
  const events = [newEvent(ctx, EventType.productChanged, id, { productId: id, changedFields: [...changed] })];
  if (variantChange.changed.length || variantChange.removed.length)
    events.push(variantsChangedEvent(ctx, id, variantChange.changed, variantChange.removed));
  const writes: Statement[] = [
    ctx.db
      .update(products)
      .set({ ...fields, updatedDate: stamp, lastUpdated: stamp })
      .where(eq(products.id, id)),
    ...variantChange.statements,
  ];
  // Writes that may move stock go through the inventory's change log (cause MANUAL) and its events.
  const stock = variantChange.statements.length || changed.has("stock") ? manualStockChange(ctx, id, writes) : undefined;
  const loaded = await writeAndLoad(
    ctx,
    id,
    [
      expectVersion(ctx, current),
      ...(stock ? stock.statements : writes),
      refreshSummary(ctx.db, [id], currency),
      ...events.map((e) => outboxInsert(ctx.db, e)),
      clearAssertions(ctx.db),
    ],
    events,
    "Product",
    stock,
  );
  return v1Product(loaded, shapeOptions(ctx, true));
}

/**
 * A copy of a product: every field, option, variant (with its own data and stock), media item and collection, under
 * a new id and a free slug, hidden until the merchant shows it (so shoppers never see two of the same by surprise).
 */
export async function duplicateProduct(ctx: Ctx, id: string) {
  const source = await loadForWrite(ctx, id);
  const r = source.row;
  const { currency } = ctx;
  const money = (minor: number | null) => (minor === null ? undefined : toMajor(minor, currency));
  const choiceOf = (mediaId: string) => {
    for (const o of r.productOptions) for (const c of o.choices) if (c.mediaIds.includes(mediaId)) return { option: o.name, choice: c.description };
    return undefined;
  };
  const name = `${r.name.slice(0, 73)} (copy)`;
  const input: ProductInput = {
    name,
    productType: r.productType,
    description: r.description,
    ...(r.richDescription ? { richDescription: r.richDescription as ProductInput["richDescription"] } : {}),
    ...(r.sku ? { sku: r.sku } : {}),
    visible: false,
    ...(r.weight !== null ? { weight: r.weight } : {}),
    priceData: { price: toMajor(r.price, currency) },
    ...(r.cost !== null ? { costAndProfitData: { itemCost: toMajor(r.cost, currency) } } : {}),
    discount: { type: r.discountType, value: r.discountValue },
    ...(r.pricePerUnitData ? { pricePerUnitData: r.pricePerUnitData as ProductInput["pricePerUnitData"] } : {}),
    ...(r.ribbon ? { ribbon: r.ribbon } : {}),
    ...(r.brand ? { brand: r.brand } : {}),
    manageVariants: r.manageVariants,
    productOptions: r.productOptions.map((o) => ({
      name: o.name,
      optionType: o.optionType,
      choices: o.choices.map((c) => ({ value: c.value, description: c.description, visible: c.visible })),
    })),
    stock: { trackInventory: r.trackInventory },
    additionalInfoSections: r.infoSections.map(({ title, description }) => ({ title, description })),
    ...(r.seoData ? { seoData: r.seoData as ProductInput["seoData"] } : {}),
    media: r.media.map(({ id: mediaId, width, height, ...m }) => ({
      ...m,
      width,
      height,
      ...(choiceOf(mediaId) ? { choice: choiceOf(mediaId) } : {}),
    })),
    // Each variant's own data (when it has any) and its stock, matched by its choices.
    variants: source.variants.map((v) => ({
      choices: v.choices,
      ...(r.manageVariants
        ? { price: money(v.price), cost: money(v.cost), weight: v.weight ?? undefined, sku: v.sku ?? undefined, visible: v.visible }
        : {}),
      stock: r.trackInventory ? { quantity: v.quantity ?? 0 } : { inStock: v.inStock },
    })),
  };
  const slug = await freeSlug(ctx.db, products, slugify(name));
  const prepared = prepareCreateProduct(ctx, input, slug);
  const now = nowIso();
  const memberships = source.collectionIds
    .filter((c) => c !== ALL_PRODUCTS_COLLECTION_ID)
    .map((collectionId) =>
      ctx.db.insert(collectionProducts).values({ collectionId, productId: prepared.row.id, addedDate: now }).onConflictDoNothing(),
    );
  const loaded = await writeAndLoad(ctx, prepared.row.id, [...prepared.statements, ...memberships], prepared.events);
  return v1Product(loaded, shapeOptions(ctx, true));
}

/** Deletes a product (its variants and collection memberships go with it). */
export async function deleteProduct(ctx: Ctx, id: string): Promise<void> {
  requirePermission(ctx, "catalog.write");
  const event = newEvent(ctx, EventType.productDeleted, id, { productId: id });
  // The event row is written only if the delete removed the product (outboxInsertIfChanged), so only then flush it.
  // The media it had are read in the same batch, so the files nobody else uses can go once the delete committed.
  const [had, deleted] = await commit(
    ctx,
    [
      ctx.db.select({ media: products.media }).from(products).where(eq(products.id, id)),
      ctx.db.delete(products).where(eq(products.id, id)),
      outboxInsertIfChanged(ctx.db, event),
    ],
    (results) => (results[1].meta.changes ? [event] : []),
  );
  if (!deleted.meta.changes) throw notFound("PRODUCT_NOT_FOUND", "Product", id, "productId");
  ctx.waitUntil(
    releaseUnusedMedia(
      ctx,
      had.flatMap((r) => r.media.flatMap((m) => [m.url, m.thumbnailUrl ?? ""])),
    ),
  );
}

/** Clears the product's brand or ribbon. */
export async function removeProductField(ctx: Ctx, id: string, field: "brand" | "ribbon"): Promise<void> {
  const current = await loadForWrite(ctx, id);
  await writeProductColumns(ctx, current, { [field]: null }, [field]);
}
