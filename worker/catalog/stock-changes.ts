import { sql, type SQL } from "drizzle-orm";
import { runBatch } from "#worker/platform/unit-of-work";
import { refreshSummary } from "./product-reads";
import type { InventoryCause } from "./tables";
import { flushStoredEvents, type Statement } from "#worker/events";
import { EventType } from "#worker/events";
import { assertPreviousChanged, clearAssertions, conflict, isAssertionFailure } from "#worker/platform/batch";
import { actorOf, nowIso, type Ctx } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { ApiError, badField } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";

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
export const NO_LIMIT = 1_000_000_000;

// ---------------------------------------------------------------------------------------------------------------
// SQL building blocks

/** A JSON boolean from an SQL condition (json_object would otherwise write 0/1). */
const bool = (cond: SQL) => sql`json(CASE WHEN ${cond} THEN 'true' ELSE 'false' END)`;

/** A random UUID made by SQLite, for log rows whose number the batch only knows when it runs. */
const sqlUuid = sql.raw(
  `lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-' || ` +
    `substr('89ab', 1 + (abs(random()) % 4), 1) || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))`,
);

export const tracked = (productId: string) => sql`(SELECT p.track_inventory FROM products p WHERE p.id = ${productId})`;

/** How far below zero a variant of this product may go: minus the preorder limit when preorder is on, else 0. */
const preorderFloor = (productId: string) =>
  sql`coalesce((SELECT -coalesce(ps.preorder_limit, ${NO_LIMIT}) FROM preorder_settings ps WHERE ps.product_id = ${productId} AND ps.enabled = 1), 0)`;

/** Effective in-stock of a variant row `v` of product row `p`. */
const inStockOf = (p: string, v: string) =>
  sql.raw(`(CASE WHEN ${p}.track_inventory = 1 THEN coalesce(${v}.quantity, 0) > 0 ELSE ${v}.in_stock = 1 END)`);

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
  /** What made the change, written on its log rows (a keyed release); null for the others. */
  changeKey?: string | null;
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

export function withAlso(change: StockChange, opts: BatchOptions): StockChange {
  return opts.also?.length ? { ...change, statements: [...change.statements, ...opts.also] } : change;
}

/** The change's targets without repeats; a product-wide target covers that product's single-variant targets. */
function distinctTargets(targets: ChangeSpec["targets"]): [string, string | null][] {
  const whole = new Set(targets.filter((t) => t.variantId === null).map((t) => t.productId));
  const seen = new Set<string>();
  const out: [string, string | null][] = [];
  for (const t of targets) {
    if (t.variantId !== null && whole.has(t.productId)) continue;
    const key = `${t.productId}\u0000${t.variantId ?? ""}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([t.productId, t.variantId]);
  }
  return out;
}

/** Copies the targets' stock into stock_snapshots at the start of the change's batch. */
function snapshotStatement(db: Db, changeId: string, targets: [string, string | null][]): Statement {
  return rawStatement(
    db,
    sql`INSERT INTO stock_snapshots (change_id, product_id, variant_id, quantity, in_stock, tracked, preorder_enabled, preorder_limit, preorder_message)
      SELECT ${changeId}, v.product_id, v.id, v.quantity, v.in_stock, p.track_inventory, coalesce(ps.enabled, 0), ps.preorder_limit, ps.message
      FROM json_each(${JSON.stringify(targets)}) j
      JOIN variants v ON v.product_id = json_extract(j.value, '$[0]')
        AND (json_extract(j.value, '$[1]') IS NULL OR v.id = json_extract(j.value, '$[1]'))
      JOIN products p ON p.id = v.product_id
      LEFT JOIN preorder_settings ps ON ps.product_id = p.id`,
  );
}

/** Wraps mutations into a complete stock change: snapshot, log rows, version stamps, summaries, events, cleanup. */
export function stockChange(ctx: Ctx, spec: ChangeSpec): StockChange {
  const { db } = ctx;
  const changeId = newId();
  const now = nowIso();
  const actor = actorOf(ctx.auth);
  const targets = distinctTargets(spec.targets);
  const productIds = [...new Set(targets.map(([p]) => p))];
  const diff = diffCte(changeId);

  const snapshot = snapshotStatement(db, changeId, targets);
  const log = rawStatement(
    db,
    sql`${diff} INSERT INTO inventory_changes (id, product_id, variant_id, delta, quantity_after, in_stock_after, cause, reason, order_id, change_key, actor_type, actor_id, created_date)
      SELECT ${sqlUuid}, c.pid, c.vid, coalesce(c.new_q, 0) - coalesce(c.old_q, 0), c.new_q, c.new_in,
        ${spec.cause}, ${spec.reason}, ${spec.orderId}, ${spec.changeKey ?? null}, ${actor.type}, ${actor.id}, ${now}
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

// ---------------------------------------------------------------------------------------------------------------
// Reservations (checkout) and releases (cancel)

/** Sums lines per variant (the same variant on two lines is reserved once, for the total). */
function aggregate(lines: StockLine[]): StockLine[] {
  const byKey = new Map<string, StockLine>();
  for (const l of lines) {
    if (!Number.isInteger(l.quantity) || l.quantity < 1)
      throw badField("lineItems.quantity", `must be a whole number of at least 1 (got ${l.quantity} for ${l.name})`, "MIN");
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
 * Statements that return an order's stock, cause REVERT_INVENTORY_CHANGE; never more than the order still holds of
 * a variant (what it took less what came back). Without a key (a cancel) it happens at most once per variant; with a
 * key (a refund's restock, `refund:<id>`) each key returns its own quantity once, so a replay returns nothing. A
 * line the order never took from tracked stock changes nothing. Never fails; call `flushStockEvents` after.
 */
export function releaseStockStatements(
  ctx: Ctx,
  lines: StockLine[],
  orderId: string,
  reason: string | null = null,
  key: string | null = null,
): StockChange {
  const mutations: Statement[] = [];
  for (const l of aggregate(lines)) {
    const taken = sql`FROM inventory_changes ic WHERE ic.order_id = ${orderId} AND ic.product_id = ${l.productId} AND ic.variant_id = ${l.variantId}`;
    const held = sql`(SELECT coalesce(-sum(ic.delta), 0) ${taken} AND ic.cause IN ('ORDER', 'REVERT_INVENTORY_CHANGE'))`;
    const once =
      key === null
        ? sql`NOT EXISTS (SELECT 1 ${taken} AND ic.cause = 'REVERT_INVENTORY_CHANGE' AND ic.change_key IS NULL)`
        : sql`NOT EXISTS (SELECT 1 ${taken} AND ic.change_key = ${key})`;
    mutations.push(
      rawStatement(
        ctx.db,
        sql`UPDATE variants SET quantity = coalesce(quantity, 0) + min(${l.quantity}, ${held})
          WHERE product_id = ${l.productId} AND id = ${l.variantId} AND ${tracked(l.productId)} = 1
            AND ${held} > 0 AND ${once}`,
      ),
    );
  }
  return stockChange(ctx, {
    cause: "REVERT_INVENTORY_CHANGE",
    reason,
    orderId,
    changeKey: key,
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
  const rows = await db.all<{
    pid: string;
    vid: string;
    quantity: number | null;
    in_stock: number;
    tracked: number;
    pre_enabled: number;
    pre_limit: number | null;
  }>(
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
    if (!r)
      return { productId, variantId, exists: false, trackQuantity: false, quantity: null, inStock: false, availableForPreorder: false, available: 0 };
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

/** Returns an order's stock on its own (one batch); `key` as in releaseStockStatements. */
export async function releaseStock(
  ctx: Ctx,
  lines: StockLine[],
  orderId: string,
  reason: string | null = null,
  key: string | null = null,
): Promise<void> {
  await runChange(ctx, releaseStockStatements(ctx, lines, orderId, reason, key));
}

export async function runChange(ctx: Ctx, change: StockChange, lines?: StockLine[]): Promise<void> {
  try {
    await runBatch(ctx.db, change.statements);
  } catch (err) {
    const explained = lines ? await explainStockFailure(ctx, err, lines) : err;
    if (explained instanceof ApiError) throw explained;
    if (isAssertionFailure(explained)) throw conflict("The inventory item");
    throw explained;
  }
  flushStockEvents(ctx, change);
}
