import { and, desc, eq, sql } from "drizzle-orm";
import { runBatch } from "#worker/platform/unit-of-work";
import { inventoryChanges, preorderSettings, products, variants, type InventoryCause } from "./tables";
import type { Statement } from "#worker/events";
import { assertInBatch, conflict, isAssertionFailure } from "#worker/platform/batch";
import { nowIso, requireMerchant, type Ctx, requirePermission } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { invalidArgument, notFound, type FieldViolation } from "#worker/platform/errors";
import { compileQuery, pagingMetadata, type FieldMap, type QueryInput } from "#worker/platform/query";
import {
  type BatchOptions,
  flushStockEvents,
  insufficientInventory,
  NO_LIMIT,
  readStockAvailability,
  runChange,
  stockChange,
  type StockLine,
  withAlso,
} from "./stock-changes";
import { lowStockThresholdSql } from "./stock-settings";

/** Inventory items for the merchant: reads, adjustments, item updates, the change history and low stock. */

// ---------------------------------------------------------------------------------------------------------------
// Reading inventory items

interface ItemVariant {
  id: string;
  choices: Record<string, string>;
  quantity: number | null;
  inStock: boolean;
  visible: boolean;
}

interface ItemRow {
  id: string;
  name: string;
  numericId: number;
  trackInventory: boolean;
  lastUpdated: string;
  variants: ItemVariant[];
  preorder: { enabled: boolean; message: string | null; limit: number | null };
}

const itemColumns = {
  id: products.id,
  name: products.name,
  numericId: products.numericId,
  trackInventory: products.trackInventory,
  lastUpdated: products.lastUpdated,
  preorderEnabled: preorderSettings.enabled,
  preorderMessage: preorderSettings.message,
  preorderLimit: preorderSettings.limit,
  variantsJson: sql<string>`(SELECT json_group_array(json_object('id', v.id, 'choices', json(v.choices), 'quantity', v.quantity,
      'inStock', v.in_stock, 'visible', v.visible)) FROM (SELECT * FROM variants v WHERE v.product_id = ${sql.raw(`"products"."id"`)} ORDER BY v.position) v)`.as(
    "variants_json",
  ),
};

function selectItems(db: Db) {
  return db.select(itemColumns).from(products).leftJoin(preorderSettings, eq(preorderSettings.productId, products.id));
}

type RawItem = Awaited<ReturnType<ReturnType<typeof selectItems>["all"]>>[number];

function toItem(r: RawItem): ItemRow {
  const variants = (JSON.parse(r.variantsJson) as (Omit<ItemVariant, "inStock" | "visible"> & { inStock: number; visible: number })[]).map((v) => ({
    ...v,
    inStock: !!v.inStock,
    visible: !!v.visible,
  }));
  return {
    id: r.id,
    name: r.name,
    numericId: r.numericId,
    trackInventory: !!r.trackInventory,
    lastUpdated: r.lastUpdated,
    variants,
    preorder: { enabled: !!r.preorderEnabled, message: r.preorderMessage ?? null, limit: r.preorderLimit ?? null },
  };
}

async function loadItems(db: Db, ids: string[]): Promise<Map<string, ItemRow>> {
  if (!ids.length) return new Map();
  const rows = await selectItems(db).where(sql`${products.id} IN (SELECT value FROM json_each(${JSON.stringify([...new Set(ids)])}))`);
  return new Map(rows.map((r) => [r.id, toItem(r)]));
}

function variantStock(item: ItemRow, v: ItemVariant) {
  const q = v.quantity ?? 0;
  const inStock = item.trackInventory ? q > 0 : v.inStock;
  const floor = item.preorder.enabled ? -(item.preorder.limit ?? NO_LIMIT) : 0;
  const availableForPreorder = item.trackInventory && item.preorder.enabled && q <= 0 && q > floor;
  return { inStock, availableForPreorder };
}

/** An inventory item in the Wix Stores inventory v2 shape, plus its availability statuses. */
function itemShape(item: ItemRow, variantIds?: string[]) {
  const list = variantIds ? item.variants.filter((v) => variantIds.includes(v.id)) : item.variants;
  const all = item.variants.map((v) => ({ v, ...variantStock(item, v) }));
  const counted = all.filter((x) => x.v.visible).length ? all.filter((x) => x.v.visible) : all;
  const inStockCount = counted.filter((x) => x.inStock).length;
  const preorderCount = counted.filter((x) => x.availableForPreorder).length;
  return {
    id: item.id,
    productId: item.id,
    trackQuantity: item.trackInventory,
    variants: list.map((v) => {
      const s = variantStock(item, v);
      return {
        variantId: v.id,
        inStock: s.inStock,
        quantity: item.trackInventory ? (v.quantity ?? 0) : null,
        availableForPreorder: s.availableForPreorder,
        /** Stock availability, as the Wix inventory API names it. */
        availabilityStatus: s.inStock ? "IN_STOCK" : s.availableForPreorder ? "PREORDER" : "OUT_OF_STOCK",
      };
    }),
    lastUpdated: item.lastUpdated,
    numericId: String(item.numericId),
    preorderInfo: {
      enabled: item.preorder.enabled,
      ...(item.preorder.message !== null ? { message: item.preorder.message } : {}),
      ...(item.preorder.limit !== null ? { limit: item.preorder.limit } : {}),
    },
    /** Product availability, as the Wix inventory API names it. */
    availabilityStatus: inStockCount === 0 ? "OUT_OF_STOCK" : inStockCount === counted.length ? "IN_STOCK" : "PARTIALLY_OUT_OF_STOCK",
    preorderStatus: item.preorder.enabled && item.trackInventory ? "ENABLED" : "DISABLED",
    preorderAvailability: preorderCount === 0 ? "NO_VARIANTS" : preorderCount === counted.length ? "ALL_VARIANTS" : "SOME_VARIANTS",
  };
}

/** Fields the inventory query filters and sorts on (the inventory item id is its product's id). */
export const inventoryFields: FieldMap = {
  id: { sql: products.id, type: "string", sortable: true },
  productId: { sql: products.id, type: "string", sortable: true },
  trackQuantity: { sql: products.trackInventory, type: "boolean" },
  lastUpdated: { sql: products.lastUpdated, type: "date", sortable: true },
  numericId: { sql: products.numericId, type: "number", sortable: true },
  quantity: { sql: products.quantity, type: "number", sortable: true },
  inStock: { sql: products.inStock, type: "boolean" },
  "preorderInfo.enabled": { sql: sql`coalesce(${preorderSettings.enabled}, 0)`, type: "boolean" },
};

/** Query inventory items (merchant): filter and sort may be JSON strings, as the SDK sends them. Offset paging. */
export async function queryInventory(ctx: Ctx, query: QueryInput | undefined) {
  requireMerchant(ctx);
  const compiled = compileQuery(query, inventoryFields, {
    currency: ctx.currency,
    tieBreaker: products.id,
    defaultSort: [sql`${products.numericId} ASC`],
  });
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    selectItems(ctx.db)
      .where(compiled.where)
      .orderBy(...compiled.orderBy)
      .limit(compiled.limit)
      .offset(compiled.offset),
    ctx.db
      .select({ total: sql<number>`count(*)` })
      .from(products)
      .leftJoin(preorderSettings, eq(preorderSettings.productId, products.id))
      .where(compiled.where),
  ]);
  const items = rows.map((r) => itemShape(toItem(r)));
  return { inventoryItems: items, metadata: pagingMetadata(items.length, compiled.offset, total), totalResults: total };
}

/** One inventory item with its variants (all, or those named). */
export async function getInventoryVariants(ctx: Ctx, inventoryId: string, variantIds?: string[]) {
  requireMerchant(ctx);
  const item = (await loadItems(ctx.db, [inventoryId])).get(inventoryId);
  if (!item) throw notFound("INVENTORY_ITEM_NOT_FOUND", "Inventory item", inventoryId, "inventoryId");
  return { inventoryItem: itemShape(item, variantIds?.length ? variantIds : undefined) };
}

// ---------------------------------------------------------------------------------------------------------------
// Merchant changes

/** A display name for errors: "Tee (M / Navy)". */
function displayName(item: ItemRow, v: ItemVariant): string {
  const choices = Object.values(v.choices);
  return choices.length ? `${item.name} (${choices.join(" / ")})` : item.name;
}

export interface AdjustmentInput {
  inventoryId?: string;
  productId?: string;
  variantId?: string;
  by: number;
  preorderRequest?: boolean;
}

/** Resolves increment/decrement items to variants; every bad item is a field violation. */
async function resolveAdjustments(ctx: Ctx, items: AdjustmentInput[], field: string, byField: string) {
  const violations: FieldViolation[] = [];
  const ids = items.map((i) => i.productId ?? i.inventoryId).filter((x): x is string => !!x);
  const loaded = await loadItems(ctx.db, ids);
  const out: { item: ItemRow; variant: ItemVariant; by: number; preorderRequest: boolean; index: number }[] = [];
  items.forEach((input, index) => {
    const at = `${field}[${index}]`;
    if (input.productId && input.inventoryId && input.productId !== input.inventoryId) {
      violations.push({
        field: `${at}.inventoryId`,
        description: "names another item than productId (they are the same id here)",
        violatedRule: "VALIDATION",
        data: {},
      });
      return;
    }
    const productId = input.productId ?? input.inventoryId;
    if (!productId) {
      violations.push({ field: `${at}.productId`, description: "is required (or inventoryId)", violatedRule: "REQUIRED_FIELD", data: {} });
      return;
    }
    const item = loaded.get(productId);
    if (!item) {
      violations.push({ field: `${at}.productId`, description: `matches no product`, violatedRule: "VALIDATION", data: { productId } });
      return;
    }
    let variant: ItemVariant | undefined;
    if (input.variantId) variant = item.variants.find((v) => v.id === input.variantId);
    else if (item.variants.length === 1) variant = item.variants[0];
    else {
      violations.push({
        field: `${at}.variantId`,
        description: "is required: the product has several variants",
        violatedRule: "REQUIRED_FIELD",
        data: {},
      });
      return;
    }
    if (!variant) {
      violations.push({
        field: `${at}.variantId`,
        description: "matches no variant of this product",
        violatedRule: "VALIDATION",
        data: { variantId: input.variantId },
      });
      return;
    }
    if (!item.trackInventory) {
      violations.push({
        field: `${at}.${byField}`,
        description: "cannot change a quantity the product does not track (turn trackQuantity on, or set inStock)",
        violatedRule: "VALIDATION",
        data: { productId },
      });
      return;
    }
    out.push({ item, variant, by: input.by, preorderRequest: input.preorderRequest ?? false, index });
  });
  if (violations.length) throw invalidArgument(violations);
  return out;
}

/** Items per variant: the same variant named twice moves once, by the sum (preorder if any of them asked for it). */
function perVariant(resolved: Awaited<ReturnType<typeof resolveAdjustments>>) {
  const byKey = new Map<string, { item: ItemRow; variant: ItemVariant; by: number; preorderRequest: boolean }>();
  for (const r of resolved) {
    const key = `${r.item.id}\u0000${r.variant.id}`;
    const prev = byKey.get(key);
    if (prev) Object.assign(prev, { by: prev.by + r.by, preorderRequest: prev.preorderRequest || r.preorderRequest });
    else byKey.set(key, { item: r.item, variant: r.variant, by: r.by, preorderRequest: r.preorderRequest });
  }
  return [...byKey.values()];
}

/**
 * One set-based update of many variants, `quantity + sign * n`, guarded by `floor` when removing, then an assertion
 * that it moved every one of them (else the batch, and so the whole call, changes nothing). One statement for up
 * to 300 items keeps the batch small.
 */
function adjustStatements(db: Db, rows: ReturnType<typeof perVariant>, sign: 1 | -1): Statement[] {
  const data = JSON.stringify(rows.map((r) => [r.item.id, r.variant.id, r.by, r.preorderRequest ? 1 : 0]));
  const guard =
    sign === 1
      ? sql``
      : sql`AND coalesce(variants.quantity, 0) - d.n >= (CASE WHEN d.pre = 1 THEN coalesce((SELECT -coalesce(ps.preorder_limit, ${NO_LIMIT})
          FROM preorder_settings ps WHERE ps.product_id = d.pid AND ps.enabled = 1), 0) ELSE 0 END)`;
  return [
    rawStatement(
      db,
      sql`UPDATE variants SET quantity = coalesce(variants.quantity, 0) + ${sign} * d.n
        FROM (SELECT json_extract(value, '$[0]') AS pid, json_extract(value, '$[1]') AS vid, json_extract(value, '$[2]') AS n,
          json_extract(value, '$[3]') AS pre FROM json_each(${data})) d
        WHERE variants.product_id = d.pid AND variants.id = d.vid
          AND (SELECT p.track_inventory FROM products p WHERE p.id = d.pid) = 1 ${guard}`,
    ),
    // A variant lacked stock, or its product was deleted or stopped tracking since it was read.
    assertInBatch(db, sql`changes() = ${rows.length}`),
  ];
}

/** Adds stock (cause MANUAL). Each item 1..99999; all items or none. */
export async function incrementInventory(ctx: Ctx, items: AdjustmentInput[], reason: string | null = null, opts: BatchOptions = {}): Promise<void> {
  requirePermission(ctx, "inventory.write");
  const rows = perVariant(await resolveAdjustments(ctx, items, "incrementData", "incrementBy"));
  const targets = rows.map((r) => ({ productId: r.item.id, variantId: r.variant.id }));
  await runChange(
    ctx,
    withAlso(stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets, mutations: adjustStatements(ctx.db, rows, 1) }), opts),
  );
}

/**
 * Removes stock (cause MANUAL): never below zero, all items or none; the 409 names the first item that lacks
 * stock. With `preorderRequest` an item with preorder on may go below zero, down to minus its preorder limit.
 */
export async function decrementInventory(ctx: Ctx, items: AdjustmentInput[], reason: string | null = null, opts: BatchOptions = {}): Promise<void> {
  requirePermission(ctx, "inventory.write");
  const rows = perVariant(await resolveAdjustments(ctx, items, "decrementData", "decrementBy"));
  const lines: StockLine[] = rows.map((r) => ({
    productId: r.item.id,
    variantId: r.variant.id,
    quantity: r.by,
    name: displayName(r.item, r.variant),
  }));
  const mutations = adjustStatements(ctx.db, rows, -1);
  const change = withAlso(stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets: lines, mutations }), opts);
  try {
    await runBatch(ctx.db, change.statements);
  } catch (err) {
    if (!isAssertionFailure(err)) throw err;
    // The merchant's own floor is zero unless the item asked for preorder: explain against that.
    const wanted = lines;
    const now = await readStockAvailability(ctx.db, wanted);
    for (let i = 0; i < wanted.length; i++) {
      const pre = rows[i].preorderRequest;
      const available = pre ? now[i].available : now[i].trackQuantity ? Math.max(0, now[i].quantity ?? 0) : 0;
      if (available !== null && available < wanted[i].quantity) throw insufficientInventory(wanted[i], available);
    }
    throw conflict("The inventory item");
  }
  flushStockEvents(ctx, change);
}

export interface InventoryItemUpdate {
  productId?: string;
  trackQuantity?: boolean | null;
  variants?: { variantId: string; quantity?: number | null; inStock?: boolean | null }[];
  preorderInfo?: { enabled?: boolean; message?: string | null; limit?: number | null };
}

/**
 * Sets an item's tracking, variant quantities or in-stock flags, and preorder (cause MANUAL). Omitted fields stay
 * as they are (Wix treats an omitted trackQuantity as false; here it means "unchanged"). Turning tracking on gives
 * variants without a quantity 0; turning it off keeps each variant's in-stock state.
 */
export async function updateInventoryItem(
  ctx: Ctx,
  productId: string,
  update: InventoryItemUpdate,
  reason: string | null = null,
  opts: BatchOptions = {},
): Promise<void> {
  requirePermission(ctx, "inventory.write");
  const item = (await loadItems(ctx.db, [productId])).get(productId);
  if (!item) throw notFound("INVENTORY_ITEM_NOT_FOUND", "Inventory item", productId, "productId");
  const checked = checkItemUpdate(item, productId, update);
  const mutations = itemUpdateStatements(ctx.db, productId, item, update, checked);
  // Nothing to write: no log, no event (only the caller's own statements, if any).
  if (!mutations.length) {
    if (opts.also?.length) await runBatch(ctx.db, opts.also);
    return;
  }
  await runChange(
    ctx,
    withAlso(stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets: [{ productId, variantId: null }], mutations }), opts),
  );
}

type CheckedItemUpdate = {
  sets: { variant: ItemVariant; quantity?: number; inStock?: boolean }[];
  preorderAfter: { enabled: boolean; message: string | null; limit: number | null };
};

/** Checks an inventory item update against the stored item; throws every field's refusal at once. */
function checkItemUpdate(item: ItemRow, productId: string, update: InventoryItemUpdate): CheckedItemUpdate {
  const violations: FieldViolation[] = [];
  const at = "inventoryItem";
  if (update.productId && update.productId !== productId) {
    violations.push({ field: `${at}.productId`, description: "differs from the product id in the path", violatedRule: "VALIDATION", data: {} });
  }
  const trackAfter = update.trackQuantity ?? item.trackInventory;
  const seen = new Set<string>();
  const sets: { variant: ItemVariant; quantity?: number; inStock?: boolean }[] = [];
  (update.variants ?? []).forEach((u, i) => {
    const f = `${at}.variants[${i}]`;
    const variant = item.variants.find((v) => v.id === u.variantId);
    if (!variant)
      return void violations.push({
        field: `${f}.variantId`,
        description: "matches no variant of this product",
        violatedRule: "VALIDATION",
        data: {},
      });
    if (seen.has(u.variantId))
      return void violations.push({ field: `${f}.variantId`, description: "repeats a variant", violatedRule: "VALIDATION", data: {} });
    seen.add(u.variantId);
    const quantity = u.quantity ?? undefined;
    if (quantity !== undefined && !trackAfter) {
      return void violations.push({
        field: `${f}.quantity`,
        description: "needs trackQuantity true (set inStock for an untracked item)",
        violatedRule: "VALIDATION",
        data: {},
      });
    }
    // inStock of a tracked variant follows its quantity: a value sent back from a read is ignored.
    const inStock = trackAfter ? undefined : (u.inStock ?? undefined);
    sets.push({ variant, quantity, inStock });
  });
  const pre = update.preorderInfo;
  const preorderAfter = {
    enabled: pre?.enabled ?? item.preorder.enabled,
    message: pre?.message !== undefined ? pre.message : item.preorder.message,
    limit: pre?.limit !== undefined ? pre.limit : item.preorder.limit,
  };
  if (pre?.enabled && !trackAfter) {
    violations.push({
      field: `${at}.preorderInfo.enabled`,
      description: "needs trackQuantity true: preorder counts units below zero",
      violatedRule: "VALIDATION",
      data: {},
    });
  }
  if (violations.length) throw invalidArgument(violations);
  return { sets, preorderAfter };
}

/** The statements that apply a checked update: tracking, variant quantities or flags, preorder settings. */
function itemUpdateStatements(
  db: Db,
  productId: string,
  item: ItemRow,
  update: InventoryItemUpdate,
  { sets, preorderAfter }: CheckedItemUpdate,
): Statement[] {
  const pre = update.preorderInfo;
  const mutations: Statement[] = [];
  if (update.trackQuantity != null && update.trackQuantity !== item.trackInventory) {
    mutations.push(db.update(products).set({ trackInventory: update.trackQuantity }).where(eq(products.id, productId)));
    mutations.push(
      update.trackQuantity
        ? rawStatement(db, sql`UPDATE variants SET quantity = coalesce(quantity, 0) WHERE product_id = ${productId}`)
        : rawStatement(db, sql`UPDATE variants SET in_stock = (coalesce(quantity, 0) > 0), quantity = NULL WHERE product_id = ${productId}`),
    );
  }
  const values = sets.filter((s) => s.quantity !== undefined || s.inStock !== undefined);
  if (values.length) {
    // One statement for up to 1000 variants; a null in the JSON means "leave this one as it is".
    const data = JSON.stringify(values.map((s) => [s.variant.id, s.quantity ?? null, s.inStock === undefined ? null : s.inStock ? 1 : 0]));
    mutations.push(
      rawStatement(
        db,
        sql`UPDATE variants SET quantity = coalesce(d.q, variants.quantity), in_stock = coalesce(d.s, variants.in_stock)
          FROM (SELECT json_extract(value, '$[0]') AS vid, json_extract(value, '$[1]') AS q, json_extract(value, '$[2]') AS s FROM json_each(${data})) d
          WHERE variants.product_id = ${productId} AND variants.id = d.vid`,
      ),
    );
  }
  if (pre && JSON.stringify(preorderAfter) !== JSON.stringify(item.preorder)) {
    mutations.push(
      db
        .insert(preorderSettings)
        .values({ productId, ...preorderAfter, updatedDate: nowIso() })
        .onConflictDoUpdate({ target: preorderSettings.productId, set: { ...preorderAfter, updatedDate: nowIso() } }),
    );
  }
  return mutations;
}

// ---------------------------------------------------------------------------------------------------------------
// History

export interface HistoryRequest {
  limit: number;
  offset: number;
  variantId?: string;
  cause?: InventoryCause;
}

/** The statements of a page of a product's stock changes (newest first) and their count. */
function historyStatements(ctx: Ctx, productId: string, req: HistoryRequest) {
  const where = and(
    eq(inventoryChanges.productId, productId),
    req.variantId ? eq(inventoryChanges.variantId, req.variantId) : undefined,
    req.cause ? eq(inventoryChanges.cause, req.cause) : undefined,
  );
  return [
    ctx.db
      .select()
      .from(inventoryChanges)
      .where(where)
      .orderBy(desc(inventoryChanges.createdDate), desc(sql`rowid`))
      .limit(req.limit)
      .offset(req.offset),
    ctx.db.select({ total: sql<number>`count(*)` }).from(inventoryChanges).where(where),
  ] as const;
}

function changeShape(r: typeof inventoryChanges.$inferSelect) {
  return {
    id: r.id,
    productId: r.productId,
    variantId: r.variantId,
    delta: r.delta,
    quantityAfter: r.quantityAfter,
    inStockAfter: r.inStockAfter,
    cause: r.cause,
    reason: r.reason,
    orderId: r.orderId,
    actor: { type: r.actorType, id: r.actorId },
    createdDate: r.createdDate,
  };
}

/** A product's stock changes, newest first, with offset paging. */
export async function inventoryHistory(ctx: Ctx, productId: string, req: HistoryRequest) {
  requireMerchant(ctx);
  const [exists, rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db.select({ id: products.id }).from(products).where(eq(products.id, productId)),
    ...historyStatements(ctx, productId, req),
  ]);
  // A deleted product keeps its history; an id that never had stock is unknown.
  if (!exists.length && total === 0) throw notFound("INVENTORY_ITEM_NOT_FOUND", "Inventory item", productId, "productId");
  return { changes: rows.map(changeShape), metadata: pagingMetadata(rows.length, req.offset, total) };
}

/**
 * One product's stock as the console's stock page shows it (name, tracking, preorder, each variant's quantity and
 * state) with a page of its history: one batch, one D1 round trip.
 */
export async function inventoryOverview(ctx: Ctx, productId: string, req: HistoryRequest) {
  requireMerchant(ctx);
  const [items, rows, [{ total }]] = await runBatch(ctx.db, [
    selectItems(ctx.db).where(eq(products.id, productId)),
    ...historyStatements(ctx, productId, req),
  ]);
  if (!items.length) throw notFound("INVENTORY_ITEM_NOT_FOUND", "Inventory item", productId, "productId");
  const item = toItem(items[0]);
  return {
    item: {
      id: item.id,
      name: item.name,
      trackInventory: item.trackInventory,
      preorder: item.preorder,
      variants: item.variants.map((v) => ({ id: v.id, choices: v.choices, quantity: v.quantity, visible: v.visible, ...variantStock(item, v) })),
    },
    changes: rows.map(changeShape),
    metadata: pagingMetadata(rows.length, req.offset, total),
  };
}

/**
 * Tracked variants whose quantity is below the threshold (the low-stock automation's, by default), lowest first,
 * with their product's name: the console's low-stock view. One D1 round trip (settings, page and count together).
 */
export async function lowStockVariants(ctx: Ctx, page: { limit: number; offset: number }) {
  requireMerchant(ctx);
  const where = lowStockWhere();
  const [threshold, rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db.select({ value: sql<number | null>`${lowStockThresholdSql()}` }).from(sql`(SELECT 1)`),
    ctx.db
      // Aliased: D1 answers a batch in arrays, and two columns both named "id" would collide.
      .select({
        productId: sql<string>`${products.id}`.as("low_product_id"),
        name: products.name,
        variantId: sql<string>`${variants.id}`.as("low_variant_id"),
        choices: variants.choices,
        quantity: variants.quantity,
      })
      .from(variants)
      .innerJoin(products, eq(products.id, variants.productId))
      .where(where)
      .orderBy(sql`coalesce(${variants.quantity}, 0) ASC`, products.name, variants.position)
      .limit(page.limit)
      .offset(page.offset),
    lowStockCountRead(ctx.db),
  ]);
  return { threshold: threshold[0]?.value ?? null, variants: rows.map((r) => ({ ...r, quantity: r.quantity ?? 0 })), total };
}

const lowStockWhere = () =>
  sql`${products.trackInventory} = 1 AND ${variants.visible} = 1 AND coalesce(${variants.quantity}, 0) < ${lowStockThresholdSql()}`;

/** How many tracked variants are below the low-stock threshold, for a caller's batch (the low-stock view, the dashboard). */
export function lowStockCountRead(db: Db) {
  return db.select({ total: sql<number>`count(*)` }).from(variants).innerJoin(products, eq(products.id, variants.productId)).where(lowStockWhere());
}
