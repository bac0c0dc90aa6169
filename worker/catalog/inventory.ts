import { and, desc, eq, sql, type SQL } from "drizzle-orm";
import { refreshSummary } from "./products";
import { inventoryChanges, preorderSettings, products, variants, type InventoryCause } from "./tables";
import { AUTOMATION_SETTINGS_KEY, DEFAULT_AUTOMATION_SETTINGS } from "../automations/settings";
import { flushEvents, unflushedRowsOf, type EventEnvelope, type Statement } from "../events/outbox";
import { outbox } from "../events/tables";
import { EventType } from "../events/types";
import { assertInBatch, assertPreviousChanged, clearAssertions, conflict, isAssertionFailure } from "../platform/batch";
import { actorOf, nowIso, requireMerchant, type Actor, type Ctx, requirePermission } from "../platform/context";
import { rawStatement, type Db } from "../platform/db";
import { ApiError, badField, invalidArgument, notFound, type FieldViolation } from "../platform/errors";
import { newId } from "../platform/ids";
import { compileQuery, pagingMetadata, type FieldMap, type QueryInput } from "../platform/query";

/**
 * Inventory: per-variant stock (a tracked quantity, or an in/out-of-stock flag), preorder, the change log and the
 * inventory events. Stock lives on the catalogue's variant rows and is only ever moved by guarded SQL updates
 * inside one D1 batch, never read-then-written, so concurrent orders can never take more than there is.
 *
 * Every change is one batch of:
 *   1. a snapshot of the touched variants' stock (stock_snapshots),
 *   2. the updates: guarded ones (`quantity - n >= floor`) are followed by an assertion that aborts the whole batch
 *      unless they moved every row they should (platform/batch.ts),
 *   3. log rows and events computed in SQL from snapshot vs. new state (so they are exact under races),
 *   4. the products' new version stamp and `refreshSummary`, then the snapshot rows are deleted.
 * A change that moved nothing writes no log row and no event.
 */

export type { InventoryCause };

/** One line to reserve or release: a product's variant and how many units. `name` is used in the error. */
export interface StockLine {
  productId: string;
  variantId: string;
  quantity: number;
  name: string;
}

/** Statements of one stock change, to run in a D1 batch, and the outbox ids it may write (flush them after). */
export interface StockChange {
  statements: Statement[];
  eventIds: string[];
}

/** Largest preorder floor when preorder has no limit (quantities stay far inside 64-bit integers). */
const NO_LIMIT = 1_000_000_000;

// ---------------------------------------------------------------------------------------------------------------
// SQL building blocks

/** A JSON boolean from an SQL condition (json_object would otherwise write 0/1). */
const bool = (cond: SQL) => sql`json(CASE WHEN ${cond} THEN 'true' ELSE 'false' END)`;

/** A random UUID made by SQLite, for log rows whose number the batch only knows when it runs. */
const sqlUuid = sql.raw(
  `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || ` +
    `substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`,
);

const tracked = (productId: string) => sql`(SELECT p.track_inventory FROM products p WHERE p.id = ${productId})`;

/** How far below zero a variant of this product may go: minus the preorder limit when preorder is on, else 0. */
const preorderFloor = (productId: string) =>
  sql`coalesce((SELECT -coalesce(ps.preorder_limit, ${NO_LIMIT}) FROM preorder_settings ps WHERE ps.product_id = ${productId} AND ps.enabled = 1), 0)`;

/** Effective in-stock of a variant row `v` of product row `p`. */
const inStockOf = (p: string, v: string) => sql.raw(`(CASE WHEN ${p}.track_inventory = 1 THEN coalesce(${v}.quantity, 0) > 0 ELSE ${v}.in_stock = 1 END)`);

/** Whether a variant row `v` can be preordered now (tracked, preorder on, out of stock, limit not reached). */
const preorderableOf = (p: string, v: string, ps: string) =>
  sql.raw(
    `(${p}.track_inventory = 1 AND coalesce(${ps}.enabled, 0) = 1 AND coalesce(${v}.quantity, 0) <= 0 ` +
      `AND (${ps}.preorder_limit IS NULL OR coalesce(${v}.quantity, 0) > -${ps}.preorder_limit))`,
  );

/**
 * `d`: each snapshotted variant, old and new; `c`: the same with what changed. `stock_changed` is what the log
 * records (quantity, in-stock flag, tracking); `variant_changed` adds preorder availability (what the events report).
 */
function diffCte(changeId: string): SQL {
  return sql`WITH d AS (
      SELECT s.product_id AS pid, s.variant_id AS vid, v.position AS position,
        s.quantity AS old_q, v.quantity AS new_q, s.in_stock AS old_flag, v.in_stock AS new_flag,
        s.tracked AS old_tracked, p.track_inventory AS new_tracked,
        (CASE WHEN s.tracked = 1 THEN coalesce(s.quantity, 0) > 0 ELSE s.in_stock = 1 END) AS old_in,
        ${inStockOf("p", "v")} AS new_in,
        (s.tracked = 1 AND s.preorder_enabled = 1 AND coalesce(s.quantity, 0) <= 0
          AND (s.preorder_limit IS NULL OR coalesce(s.quantity, 0) > -s.preorder_limit)) AS old_pre,
        ${preorderableOf("p", "v", "ps")} AS new_pre,
        (s.preorder_enabled IS NOT coalesce(ps.enabled, 0) OR s.preorder_limit IS NOT ps.preorder_limit
          OR s.preorder_message IS NOT ps.message) AS preorder_changed
      FROM stock_snapshots s
      JOIN variants v ON v.product_id = s.product_id AND v.id = s.variant_id
      JOIN products p ON p.id = s.product_id
      LEFT JOIN preorder_settings ps ON ps.product_id = s.product_id
      WHERE s.change_id = ${changeId}
    ), c AS (
      SELECT *, (old_q IS NOT new_q OR old_flag IS NOT new_flag OR old_tracked IS NOT new_tracked) AS stock_changed,
        (old_q IS NOT new_q OR old_flag IS NOT new_flag OR old_tracked IS NOT new_tracked OR old_pre IS NOT new_pre) AS variant_changed
      FROM d
    )`;
}

/** A product `p` whose inventory item this change touched (any variant, tracking or preorder). */
const itemChanged = sql`EXISTS (SELECT 1 FROM c WHERE c.pid = p.id AND (c.variant_changed OR c.preorder_changed))`;

/** The preorderInfo object of product `p` with its settings row `ps`. */
const preorderInfoJson = sql.raw(
  `json_object('enabled', json(CASE WHEN coalesce(ps.enabled, 0) = 1 THEN 'true' ELSE 'false' END), 'message', ps.message, 'limit', ps.preorder_limit)`,
);

/** One changed variant `c` as the events report it: new values at the top (variantId, inStock, quantity), old and new. */
const changedVariantJson = sql`json_object('id', c.vid, 'variantId', c.vid, 'inStock', ${bool(sql`c.new_in`)}, 'quantity', c.new_q,
    'availableForPreorder', ${bool(sql`c.new_pre`)},
    'oldValue', json_object('quantity', c.old_q, 'inStock', ${bool(sql`c.old_in`)}, 'availableForPreorder', ${bool(sql`c.old_pre`)}),
    'newValue', json_object('quantity', c.new_q, 'inStock', ${bool(sql`c.new_in`)}, 'availableForPreorder', ${bool(sql`c.new_pre`)}))`;

/** JSON array of the variants of `c` matching `where`, in variant order. */
const changedVariants = (where: SQL) =>
  sql`json(coalesce((SELECT json_group_array(json(x)) FROM (SELECT ${changedVariantJson} AS x FROM c WHERE c.pid = p.id AND ${where} ORDER BY c.position)), '[]'))`;

/** The whole inventory item of product `p` (settings row `ps`) as JSON, as the query API shapes it. */
const inventoryItemJson = sql`json_object('id', p.id, 'productId', p.id, 'trackQuantity', ${bool(sql`p.track_inventory = 1`)},
    'variants', json(coalesce((SELECT json_group_array(json(x)) FROM (SELECT json_object('variantId', v.id, 'inStock', ${bool(inStockOf("p", "v"))},
      'quantity', CASE WHEN p.track_inventory = 1 THEN v.quantity END, 'availableForPreorder', ${bool(preorderableOf("p", "v", "ps"))}) AS x
      FROM variants v WHERE v.product_id = p.id ORDER BY v.position)), '[]')),
    'lastUpdated', p.last_updated, 'numericId', CAST(p.numeric_id AS TEXT), 'preorderInfo', ${preorderInfoJson})`;

interface ChangeSpec {
  cause: InventoryCause;
  reason: string | null;
  orderId: string | null;
  /** Variants to snapshot: one variant, or every variant of the product (variantId null). */
  targets: { productId: string; variantId: string | null }[];
  /** The updates, run between the snapshot and the log (guarded ones followed by their assertion). */
  mutations: Statement[];
}

/** Options of the merchant's stock calls. */
export interface BatchOptions {
  /**
   * Statements to commit in the same batch as the change (e.g. an event processor's step claim): if one of them
   * fails, the stock change is not made either.
   */
  also?: Statement[];
}

function withAlso(change: StockChange, opts: BatchOptions): StockChange {
  return opts.also?.length ? { ...change, statements: [...change.statements, ...opts.also] } : change;
}

/** Wraps mutations into a complete stock change: snapshot, log rows, version stamps, summaries, events, cleanup. */
function stockChange(ctx: Ctx, spec: ChangeSpec): StockChange {
  const { db } = ctx;
  const changeId = newId();
  const now = nowIso();
  const actor = actorOf(ctx.auth);
  // A product-wide target covers that product's single-variant targets.
  const whole = new Set(spec.targets.filter((t) => t.variantId === null).map((t) => t.productId));
  const seen = new Set<string>();
  const targets: [string, string | null][] = [];
  for (const t of spec.targets) {
    if (t.variantId !== null && whole.has(t.productId)) continue;
    const key = `${t.productId}\u0000${t.variantId ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    targets.push([t.productId, t.variantId]);
  }
  const productIds = [...new Set(targets.map(([p]) => p))];
  const diff = diffCte(changeId);

  const snapshot = rawStatement(
    db,
    sql`INSERT INTO stock_snapshots (change_id, product_id, variant_id, quantity, in_stock, tracked, preorder_enabled, preorder_limit, preorder_message)
      SELECT ${changeId}, v.product_id, v.id, v.quantity, v.in_stock, p.track_inventory, coalesce(ps.enabled, 0), ps.preorder_limit, ps.message
      FROM json_each(${JSON.stringify(targets)}) j
      JOIN variants v ON v.product_id = json_extract(j.value, '$[0]')
        AND (json_extract(j.value, '$[1]') IS NULL OR v.id = json_extract(j.value, '$[1]'))
      JOIN products p ON p.id = v.product_id
      LEFT JOIN preorder_settings ps ON ps.product_id = p.id`,
  );
  const log = rawStatement(
    db,
    sql`${diff} INSERT INTO inventory_changes (id, product_id, variant_id, delta, quantity_after, in_stock_after, cause, reason, order_id, actor_type, actor_id, created_date)
      SELECT ${sqlUuid}, c.pid, c.vid, coalesce(c.new_q, 0) - coalesce(c.old_q, 0), c.new_q, c.new_in,
        ${spec.cause}, ${spec.reason}, ${spec.orderId}, ${actor.type}, ${actor.id}, ${now}
      FROM c WHERE c.stock_changed ORDER BY c.pid, c.position`,
  );
  // A new version for every product whose inventory moved: a catalogue edit that read the product before this
  // change then fails its version check instead of writing back the old quantities.
  const stamp = sql`CASE WHEN ${now} > updated_date THEN ${now} ELSE strftime('%Y-%m-%dT%H:%M:%fZ', updated_date, '+0.001 seconds') END`;
  const bump = rawStatement(
    db,
    sql`${diff} UPDATE products SET updated_date = ${stamp}, last_updated = ${stamp}
      WHERE id IN (SELECT c.pid FROM c WHERE c.variant_changed OR c.preorder_changed)`,
  );

  const eventIds: string[] = [];
  const events = (type: string, where: SQL, data: SQL): Statement => {
    const ids = productIds.map((productId) => ({ id: newId(), productId }));
    eventIds.push(...ids.map((e) => e.id));
    return rawStatement(
      db,
      sql`${diff} INSERT INTO outbox (id, type, entity_id, event_time, actor_type, actor_id, data, attempts)
        SELECT json_extract(e.value, '$.id'), ${type}, p.id, ${now}, ${actor.type}, ${actor.id}, ${data}, 0
        FROM json_each(${JSON.stringify(ids)}) e
        JOIN products p ON p.id = json_extract(e.value, '$.productId')
        LEFT JOIN preorder_settings ps ON ps.product_id = p.id
        WHERE ${where}`,
    );
  };
  const fieldMask = sql`json(coalesce((SELECT json_group_array(path) FROM (
      SELECT 'trackQuantity' AS path WHERE EXISTS (SELECT 1 FROM c WHERE c.pid = p.id AND c.old_tracked IS NOT c.new_tracked)
      UNION ALL SELECT 'variants' WHERE EXISTS (SELECT 1 FROM c WHERE c.pid = p.id AND c.variant_changed)
      UNION ALL SELECT 'preorderInfo' WHERE EXISTS (SELECT 1 FROM c WHERE c.pid = p.id AND c.preorder_changed))), '[]'))`;
  const flipped = sql`EXISTS (SELECT 1 FROM c WHERE c.pid = p.id AND c.old_in IS NOT c.new_in)`;

  return {
    statements: [
      snapshot,
      ...spec.mutations,
      log,
      bump,
      refreshSummary(db, productIds, ctx.currency),
      events(
        EventType.inventoryItemChanged,
        itemChanged,
        sql`json_object('inventoryItemId', p.id, 'productId', p.id, 'trackInventory', ${bool(sql`p.track_inventory = 1`)},
          'preorderInfo', ${preorderInfoJson}, 'fieldMask', json_object('paths', ${fieldMask}), 'updatedDate', p.updated_date)`,
      ),
      events(
        EventType.inventoryVariantsChanged,
        sql`EXISTS (SELECT 1 FROM c WHERE c.pid = p.id AND c.variant_changed)`,
        sql`json_object('inventoryItemId', p.id, 'productId', p.id, 'variants', ${changedVariants(sql`c.variant_changed`)}, 'updatedDate', p.updated_date)`,
      ),
      events(
        EventType.inventoryStockStatusUpdated,
        flipped,
        sql`json_object('inventoryItemId', p.id, 'productId', p.id, 'inStock', ${bool(sql`p.in_stock = 1`)},
          'variants', ${changedVariants(sql`c.old_in IS NOT c.new_in`)}, 'updatedDate', p.updated_date)`,
      ),
      events(
        EventType.inventoryItemUpdatedWithReason,
        itemChanged,
        sql`json_object('inventoryItemId', p.id, 'productId', p.id, 'reason', ${spec.cause}, 'reasonText', ${spec.reason}, 'orderId', ${spec.orderId},
          'variants', ${changedVariants(sql`c.variant_changed`)}, 'currentEntity', ${inventoryItemJson}, 'updatedDate', p.updated_date)`,
      ),
      rawStatement(db, sql`DELETE FROM stock_snapshots WHERE change_id = ${changeId}`),
      clearAssertions(db),
    ],
    eventIds,
  };
}

/**
 * Wraps another domain's writes that may move stock (the catalogue's product and variant updates) into a MANUAL
 * stock change of that product: the same snapshot, log rows, events and summaries as the inventory calls.
 * Run its statements in the caller's batch and `flushStockEvents` after it commits.
 */
export function manualStockChange(ctx: Ctx, productId: string, mutations: Statement[], reason: string | null = null): StockChange {
  return stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets: [{ productId, variantId: null }], mutations });
}

/** Sends the events a committed change wrote (its outbox rows that exist and are still unflushed), after the response. */
export function flushStockEvents(ctx: Ctx, ...changes: StockChange[]): void {
  const ids = changes.flatMap((c) => c.eventIds);
  if (ids.length) ctx.waitUntil(flushStoredEvents(ctx.env, ctx.db, ids));
}

async function flushStoredEvents(env: Env, db: Db, ids: string[]): Promise<number> {
  const rows = await db
    .select()
    .from(outbox)
    .where(unflushedRowsOf(ids))
    .orderBy(sql`rowid`);
  if (!rows.length) return 0;
  const events: EventEnvelope[] = rows.map((r) => ({
    id: r.id,
    type: r.type,
    entityId: r.entityId,
    eventTime: r.eventTime,
    actor: { type: r.actorType as Actor["type"], id: r.actorId },
    data: r.data,
  }));
  return flushEvents(env, db, events);
}

// ---------------------------------------------------------------------------------------------------------------
// Reservations (checkout) and releases (cancel)

/** Sums lines per variant (the same variant on two lines is reserved once, for the total). */
function aggregate(lines: StockLine[]): StockLine[] {
  const byKey = new Map<string, StockLine>();
  for (const l of lines) {
    if (!Number.isInteger(l.quantity) || l.quantity < 1) throw badField("lineItems.quantity", `must be a whole number of at least 1 (got ${l.quantity} for ${l.name})`, "MIN");
    const key = `${l.productId}\u0000${l.variantId}`;
    const prev = byKey.get(key);
    byKey.set(key, prev ? { ...prev, quantity: prev.quantity + l.quantity } : { ...l });
  }
  return [...byKey.values()];
}

/**
 * Statements that take `lines` out of stock for an order, to put into the order's own batch (they end with
 * clearAssertions). Each variant gets one guarded update followed by an assertion, so if any line lacks stock the
 * whole batch (order included) rolls back: no line decremented, no log row, no event. Tracked variants may not go
 * below zero (below minus the preorder limit when preorder is on); untracked variants must be in stock. After the
 * batch commits call `flushStockEvents`; if it throws, pass the error to `explainStockFailure`.
 */
export function reserveStockStatements(ctx: Ctx, lines: StockLine[], cause: "ORDER", orderId: string, reason: string | null = null): StockChange {
  const mutations: Statement[] = [];
  for (const l of aggregate(lines)) {
    const isTracked = tracked(l.productId);
    mutations.push(
      rawStatement(
        ctx.db,
        sql`UPDATE variants SET quantity = CASE WHEN ${isTracked} = 1 THEN coalesce(quantity, 0) - ${l.quantity} ELSE quantity END
          WHERE product_id = ${l.productId} AND id = ${l.variantId}
            AND (CASE WHEN ${isTracked} = 1 THEN coalesce(quantity, 0) - ${l.quantity} >= ${preorderFloor(l.productId)} ELSE in_stock = 1 END)`,
      ),
      assertPreviousChanged(ctx.db),
    );
  }
  return stockChange(ctx, { cause, reason, orderId, targets: lines.map((l) => ({ productId: l.productId, variantId: l.variantId })), mutations });
}

/**
 * Statements that return an order's stock (cancel), cause REVERT_INVENTORY_CHANGE. Only what that order reserved
 * comes back, at most once per variant: a second release, or a line the order never took from tracked stock
 * (untracked items), changes nothing. Never fails; put them in the cancel's batch and call `flushStockEvents` after.
 */
export function releaseStockStatements(ctx: Ctx, lines: StockLine[], orderId: string, reason: string | null = null): StockChange {
  const mutations: Statement[] = [];
  for (const l of aggregate(lines)) {
    const taken = sql`FROM inventory_changes ic WHERE ic.order_id = ${orderId} AND ic.product_id = ${l.productId} AND ic.variant_id = ${l.variantId}`;
    mutations.push(
      rawStatement(
        ctx.db,
        sql`UPDATE variants SET quantity = coalesce(quantity, 0) + min(${l.quantity}, (SELECT coalesce(-sum(ic.delta), 0) ${taken} AND ic.cause = 'ORDER'))
          WHERE product_id = ${l.productId} AND id = ${l.variantId} AND ${tracked(l.productId)} = 1
            AND EXISTS (SELECT 1 ${taken} AND ic.cause = 'ORDER' AND ic.delta < 0)
            AND NOT EXISTS (SELECT 1 ${taken} AND ic.cause = 'REVERT_INVENTORY_CHANGE')`,
      ),
    );
  }
  return stockChange(ctx, {
    cause: "REVERT_INVENTORY_CHANGE",
    reason,
    orderId,
    targets: lines.map((l) => ({ productId: l.productId, variantId: l.variantId })),
    mutations,
  });
}

/** What can still be taken from each variant: stock now, and how many units a reservation may take. */
export interface VariantAvailability {
  productId: string;
  variantId: string;
  exists: boolean;
  trackQuantity: boolean;
  quantity: number | null;
  inStock: boolean;
  availableForPreorder: boolean;
  /** Units a reservation may take now (preorder included); null when unlimited (untracked and in stock). */
  available: number | null;
}

/** Current availability of variants (one D1 round trip). For cart quantity limits and error messages. */
export async function readStockAvailability(db: Db, refs: { productId: string; variantId: string }[]): Promise<VariantAvailability[]> {
  if (!refs.length) return [];
  const pairs = JSON.stringify(refs.map((r) => [r.productId, r.variantId]));
  const rows = await db.all<{ pid: string; vid: string; quantity: number | null; in_stock: number; tracked: number; pre_enabled: number; pre_limit: number | null }>(
    sql`SELECT v.product_id AS pid, v.id AS vid, v.quantity, v.in_stock, p.track_inventory AS tracked,
        coalesce(ps.enabled, 0) AS pre_enabled, ps.preorder_limit AS pre_limit
      FROM json_each(${pairs}) j
      JOIN variants v ON v.product_id = json_extract(j.value, '$[0]') AND v.id = json_extract(j.value, '$[1]')
      JOIN products p ON p.id = v.product_id
      LEFT JOIN preorder_settings ps ON ps.product_id = p.id`,
  );
  const found = new Map(rows.map((r) => [`${r.pid}\u0000${r.vid}`, r]));
  return refs.map(({ productId, variantId }) => {
    const r = found.get(`${productId}\u0000${variantId}`);
    if (!r) return { productId, variantId, exists: false, trackQuantity: false, quantity: null, inStock: false, availableForPreorder: false, available: 0 };
    const isTracked = r.tracked === 1;
    const q = r.quantity ?? 0;
    const floor = isTracked && r.pre_enabled === 1 ? -(r.pre_limit ?? NO_LIMIT) : 0;
    return {
      productId,
      variantId,
      exists: true,
      trackQuantity: isTracked,
      quantity: isTracked ? q : null,
      inStock: isTracked ? q > 0 : r.in_stock === 1,
      availableForPreorder: isTracked && r.pre_enabled === 1 && q <= 0 && q > floor,
      available: isTracked ? Math.max(0, q - floor) : r.in_stock === 1 ? null : 0,
    };
  });
}

/** The 409 a shopper or merchant sees when an item ran out: names the item and how many are left. */
export function insufficientInventory(line: StockLine, available: number): ApiError {
  const description =
    available > 0
      ? `Only ${available} of "${line.name}" left in stock (asked for ${line.quantity})`
      : `"${line.name}" is out of stock (asked for ${line.quantity})`;
  return new ApiError(409, "INSUFFICIENT_INVENTORY", description, {
    data: { productId: line.productId, variantId: line.variantId, name: line.name, available, requested: line.quantity },
    message: "Insufficient inventory",
  });
}

/**
 * Turns the failure of a batch that held `reserveStockStatements` (or a decrement) into a clear 409 naming the
 * first item that lacks stock now (re-read after the failure). Returns the error unchanged when it was not a
 * failed assertion, or when every line has enough stock again (another assertion of the caller's batch failed).
 */
export async function explainStockFailure(ctx: Ctx, err: unknown, lines: StockLine[]): Promise<unknown> {
  if (!isAssertionFailure(err)) return err;
  const wanted = aggregate(lines);
  const now = await readStockAvailability(ctx.db, wanted);
  for (let i = 0; i < wanted.length; i++) {
    const a = now[i];
    if (a.available !== null && a.available < wanted[i].quantity) return insufficientInventory(wanted[i], a.available);
  }
  return err;
}

/** Reserves stock on its own (one batch); for callers with no batch of their own. Throws the 409 of explainStockFailure. */
export async function reserveStock(ctx: Ctx, lines: StockLine[], orderId: string, reason: string | null = null): Promise<void> {
  const change = reserveStockStatements(ctx, lines, "ORDER", orderId, reason);
  await runChange(ctx, change, lines);
}

/** Returns an order's stock on its own (one batch). */
export async function releaseStock(ctx: Ctx, lines: StockLine[], orderId: string, reason: string | null = null): Promise<void> {
  await runChange(ctx, releaseStockStatements(ctx, lines, orderId, reason));
}

async function runChange(ctx: Ctx, change: StockChange, lines?: StockLine[]): Promise<void> {
  try {
    await ctx.db.batch(change.statements as [Statement, ...Statement[]]);
  } catch (err) {
    const explained = lines ? await explainStockFailure(ctx, err, lines) : err;
    if (explained instanceof ApiError) throw explained;
    if (isAssertionFailure(explained)) throw conflict("The inventory item");
    throw explained;
  }
  flushStockEvents(ctx, change);
}

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

/** An inventory item in the Wix Stores inventory v2 shape, plus the spec's availability statuses. */
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
        /** Stock availability (spec section 4). */
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
    /** Product availability (spec section 4). */
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
  const compiled = compileQuery(query, inventoryFields, { currency: ctx.currency, tieBreaker: products.id, defaultSort: [sql`${products.numericId} ASC`] });
  const [rows, [{ total }]] = await ctx.db.batch([
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
      violations.push({ field: `${at}.inventoryId`, description: "names another item than productId (they are the same id here)", violatedRule: "VALIDATION", data: {} });
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
      violations.push({ field: `${at}.variantId`, description: "is required: the product has several variants", violatedRule: "REQUIRED_FIELD", data: {} });
      return;
    }
    if (!variant) {
      violations.push({ field: `${at}.variantId`, description: "matches no variant of this product", violatedRule: "VALIDATION", data: { variantId: input.variantId } });
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
  await runChange(ctx, withAlso(stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets, mutations: adjustStatements(ctx.db, rows, 1) }), opts));
}

/**
 * Removes stock (cause MANUAL): never below zero, all items or none; the 409 names the first item that lacks
 * stock. With `preorderRequest` an item with preorder on may go below zero, down to minus its preorder limit.
 */
export async function decrementInventory(ctx: Ctx, items: AdjustmentInput[], reason: string | null = null, opts: BatchOptions = {}): Promise<void> {
  requirePermission(ctx, "inventory.write");
  const rows = perVariant(await resolveAdjustments(ctx, items, "decrementData", "decrementBy"));
  const lines: StockLine[] = rows.map((r) => ({ productId: r.item.id, variantId: r.variant.id, quantity: r.by, name: displayName(r.item, r.variant) }));
  const mutations = adjustStatements(ctx.db, rows, -1);
  const change = withAlso(stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets: lines, mutations }), opts);
  try {
    await ctx.db.batch(change.statements as [Statement, ...Statement[]]);
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
export async function updateInventoryItem(ctx: Ctx, productId: string, update: InventoryItemUpdate, reason: string | null = null, opts: BatchOptions = {}): Promise<void> {
  requirePermission(ctx, "inventory.write");
  const item = (await loadItems(ctx.db, [productId])).get(productId);
  if (!item) throw notFound("INVENTORY_ITEM_NOT_FOUND", "Inventory item", productId, "productId");
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
    if (!variant) return void violations.push({ field: `${f}.variantId`, description: "matches no variant of this product", violatedRule: "VALIDATION", data: {} });
    if (seen.has(u.variantId)) return void violations.push({ field: `${f}.variantId`, description: "repeats a variant", violatedRule: "VALIDATION", data: {} });
    seen.add(u.variantId);
    const quantity = u.quantity ?? undefined;
    if (quantity !== undefined && !trackAfter) {
      return void violations.push({ field: `${f}.quantity`, description: "needs trackQuantity true (set inStock for an untracked item)", violatedRule: "VALIDATION", data: {} });
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
    violations.push({ field: `${at}.preorderInfo.enabled`, description: "needs trackQuantity true: preorder counts units below zero", violatedRule: "VALIDATION", data: {} });
  }
  if (violations.length) throw invalidArgument(violations);

  const { db } = ctx;
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
  // Nothing to write: no log, no event (only the caller's own statements, if any).
  if (!mutations.length) {
    if (opts.also?.length) await ctx.db.batch(opts.also as [Statement, ...Statement[]]);
    return;
  }
  await runChange(ctx, withAlso(stockChange(ctx, { cause: "MANUAL", reason, orderId: null, targets: [{ productId, variantId: null }], mutations }), opts));
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
  const [exists, rows, [{ total }]] = await ctx.db.batch([ctx.db.select({ id: products.id }).from(products).where(eq(products.id, productId)), ...historyStatements(ctx, productId, req)]);
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
  const [items, rows, [{ total }]] = await ctx.db.batch([selectItems(ctx.db).where(eq(products.id, productId)), ...historyStatements(ctx, productId, req)]);
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
  const [threshold, rows, [{ total }]] = await ctx.db.batch([
    ctx.db.select({ value: sql<number | null>`${lowStockThresholdSql()}` }).from(sql`(SELECT 1)`),
    ctx.db
      // Aliased: D1 answers a batch in arrays, and two columns both named "id" would collide.
      .select({ productId: sql<string>`${products.id}`.as("low_product_id"), name: products.name, variantId: sql<string>`${variants.id}`.as("low_variant_id"), choices: variants.choices, quantity: variants.quantity })
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

/** The automation settings' low-stock threshold, read inside the statement: absent means the default, null means never. */
const lowStockThresholdSql = () => sql`(SELECT CASE WHEN s.value IS NULL OR json_type(s.value, '$.lowStockThreshold') IS NULL THEN ${DEFAULT_AUTOMATION_SETTINGS.lowStockThreshold}
      WHEN json_type(s.value, '$.lowStockThreshold') = 'integer' THEN json_extract(s.value, '$.lowStockThreshold') END
    FROM (SELECT (SELECT value FROM settings WHERE key = ${AUTOMATION_SETTINGS_KEY}) AS value) s)`;

const lowStockWhere = () => sql`${products.trackInventory} = 1 AND ${variants.visible} = 1 AND coalesce(${variants.quantity}, 0) < ${lowStockThresholdSql()}`;

/** How many tracked variants are below the low-stock threshold, for a caller's batch (the low-stock view, the dashboard). */
export function lowStockCountRead(db: Db) {
  return db.select({ total: sql<number>`count(*)` }).from(variants).innerJoin(products, eq(products.id, variants.productId)).where(lowStockWhere());
}

