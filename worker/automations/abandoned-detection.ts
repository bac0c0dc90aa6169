import { sql } from "drizzle-orm";
import { checkoutEmailRead, loadCarts, ownerKey, resolveAll, totalsFor, type CartOwner } from "#worker/cart";
import { cartShape, type CartRow, type CartShape } from "#worker/cart";
import { commit, newEvent, outboxInsertIfChanged } from "#worker/events";
import { memberContactRead } from "#worker/identity";
import { nowIso, systemCtx, type Ctx } from "#worker/platform/context";
import { rawStatement, type Db } from "#worker/platform/db";
import { formatMoney, toMajor } from "#worker/platform/money";
import { AutomationEventType } from "./events";
import { loadAutomationSettings } from "./settings";
import { JOB, SWEEP_CHUNK, SWEEP_MAX_CARTS } from "./abandoned-activities";

/** Abandoned carts, step 1: the sweep finds idle carts with a contact email and emits CartAbandonedEvent once per idle period. */

// ---------------------------------------------------------------------------------------------------------------
// 1. Detection (sweep)

/** A cart's contact: the buyer email on the cart, else the member's, else the email given at checkout. */
export function contactEmail(cart: CartRow, memberEmail: string | null | undefined, checkoutEmail: string | null | undefined): string | null {
  return cart.buyerInfo.email || memberEmail || checkoutEmail || null;
}

/**
 * Idle carts with items and some contact email, not yet reported for this idle period. This one query (and the
 * "cart unchanged" guard of the report's batch below) reads the cart domain's tables directly: it joins them with
 * this domain's marks on an index, which no cart service call could do in one round trip.
 */
/**
 * The carts idle past the cutoff whose idle period the sweep has not decided on yet (through carts_abandon_pending_idx,
 * named because without statistics SQLite would pick the status and activity index, which holds every idle cart:
 * the carts decided before are not even read), oldest first, with what decides them: whether they have items, a way
 * to reach the shopper, and a report already made for this idle period.
 */
const candidateSql = (
  cutoff: string,
  skipped: Set<string>,
) => sql`SELECT c.id AS id, c.owner_kind AS ownerKind, c.owner_id AS ownerId, c.last_activity AS lastActivity,
    c.checkout_id IS NOT NULL AS hasCheckout,
    EXISTS (SELECT 1 FROM cart_line_items l WHERE l.cart_id = c.id) AS hasItems,
    (json_extract(c.buyer_info, '$.email') IS NOT NULL OR c.owner_kind = 'member'
      OR EXISTS (SELECT 1 FROM checkouts k WHERE k.id = c.checkout_id AND json_extract(k.buyer_info, '$.email') IS NOT NULL)) AS reachable,
    EXISTS (SELECT 1 FROM cart_abandonment_marks m WHERE m.cart_id = c.id AND m.idle_since = c.last_activity) AS reported
  FROM carts c INDEXED BY carts_abandon_pending_idx
  WHERE c.status = 'ACTIVE' AND c.abandon_checked IS NOT c.last_activity AND c.last_activity < ${cutoff}
    AND c.id NOT IN (SELECT value FROM json_each(${JSON.stringify([...skipped])}))
  ORDER BY c.last_activity, c.id LIMIT ${SWEEP_CHUNK}`;

interface Candidate {
  id: string;
  ownerKind: "visitor" | "member";
  ownerId: string;
  lastActivity: string;
  hasCheckout: number;
  hasItems: number;
  reachable: number;
  reported: number;
}

/**
 * Records the sweep's decision on each cart's idle period, only while that period lasts (a cart with new activity
 * since it was read keeps its new period undecided).
 */
const decidedSql = (decided: Candidate[]) =>
  sql`UPDATE carts SET abandon_checked = last_activity
    WHERE (id, last_activity) IN (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${JSON.stringify(decided.map((c) => [c.id, c.lastActivity]))}))`;

/**
 * Sweep: reports carts idle past the threshold as abandoned (one CartAbandonedEvent per idle period, through the
 * outbox). `now` is the clock it judges by. Returns how many it reported.
 *
 * Each idle period is decided once: reported, or not a candidate (no items; no email, unless the cart's checkout may
 * still get one without the cart changing), and the cart is then left alone until its next activity. So what a sweep
 * reads grows with the carts that went idle since the last one, not with every idle cart the store has ever had. A
 * cart that fails to be priced stays undecided: the next sweep tries it again.
 */
export async function detectAbandonedCarts(env: Env, db: Db, now: Date, waitUntil: (p: Promise<unknown>) => void): Promise<number> {
  const settings = await loadAutomationSettings(db);
  if (!settings.abandonedCartEnabled) return 0;
  const cutoff = new Date(now.getTime() - settings.abandonedCartIdleMinutes * 60_000).toISOString();
  const ctx = systemCtx(env, db, JOB, waitUntil);
  let reported = 0;
  const skipped = new Set<string>();
  for (let seen = 0; seen < SWEEP_MAX_CARTS; ) {
    const rows = await db.all<Candidate>(candidateSql(cutoff, skipped));
    if (!rows.length) break;
    seen += rows.length;
    const decided: Candidate[] = [];
    for (const row of rows) {
      skipped.add(row.id);
      if (row.reported || !row.hasItems || (!row.reachable && !row.hasCheckout)) {
        decided.push(row);
      } else if (row.reachable) {
        try {
          if (await reportCart(ctx, row, now)) reported++;
          decided.push(row);
        } catch (err) {
          // One cart that cannot be priced must not hold back the others; the next sweep tries it again.
          console.error("abandoned-cart sweep: could not report cart", row.id, err);
        }
      }
      // Otherwise its checkout may still get an email: looked at again by the next sweep.
    }
    if (decided.length) await db.run(decidedSql(decided));
  }
  return reported;
}

/** Line items as the abandoned checkout keeps them: the cart's wire line items, without the bulky parts. */
function compactLines(cart: CartShape) {
  return cart.lineItems.map((l) => ({
    id: l.id,
    quantity: l.quantity,
    ...(l.catalogReference ? { catalogReference: l.catalogReference } : {}),
    productName: l.productName,
    price: l.price,
    lineItemPrice: l.lineItemPrice,
    ...("url" in l && l.url ? { url: l.url } : {}),
    ...("image" in l && l.image ? { image: l.image } : {}),
    descriptionLines: l.descriptionLines,
    physicalProperties: l.physicalProperties,
    itemType: l.itemType,
  }));
}

async function reportCart(
  ctx: Ctx,
  row: { id: string; ownerKind: "visitor" | "member"; ownerId: string; lastActivity: string },
  now: Date,
): Promise<boolean> {
  const owner: CartOwner = { kind: row.ownerKind, id: row.ownerId };
  const member = owner.kind === "member" ? [memberContactRead(ctx.db, owner.id)] : [];
  const loaded = await loadCarts(ctx, [owner], [], [checkoutEmailRead(ctx.db, { cartId: row.id }), ...member]);
  const cart = loaded.states.get(ownerKey(owner))?.cart;
  if (!cart || cart.id !== row.id || cart.lastActivity !== row.lastActivity) return false;
  const [checkoutRows, memberRows] = loaded.extra as [{ email: string | null }[], { email: string; profile: Record<string, unknown> }[] | undefined];
  const email = contactEmail(cart, memberRows?.[0]?.email, checkoutRows[0]?.email);
  if (!email) return false;
  const state = loaded.states.get(ownerKey(owner))!;
  const resolved = resolveAll(ctx, { ...state, cart, products: loaded.products });
  const totals = await totalsFor(ctx, cart, resolved);
  const shape = cartShape(cart, resolved, ctx.origin);
  const summary = totals.result.priceSummary;
  const contact = cart.contactInfo?.contactDetails;
  const profile = (memberRows?.[0]?.profile ?? {}) as { firstName?: string; lastName?: string };
  const firstName = contact?.firstName || profile.firstName;
  const lastName = contact?.lastName || profile.lastName;
  const major = (minor: number) => toMajor(minor, cart.currency);
  // The Wix event's fields, plus what the abandoned checkout needs (currency, line items, checkout).
  const data = {
    cartId: cart.id,
    creationTime: cart.createdDate,
    abandonTime: now.toISOString(),
    buyerInfo: {
      id: owner.id,
      identityType: owner.kind === "member" ? "MEMBER" : "VISITOR",
      email,
      ...(firstName ? { firstName } : {}),
      ...(lastName ? { lastName } : {}),
      ...(contact?.phone ? { phone: contact.phone } : {}),
    },
    itemsCount: resolved.reduce((n, r) => n + r.row.quantity, 0),
    ...(cart.couponCode ? { couponId: cart.couponCode } : {}),
    totals: { subtotal: major(summary.subtotal), total: major(summary.total), formattedTotal: formatMoney(summary.total, cart.currency) },
    currency: cart.currency,
    ...(cart.checkoutId ? { checkoutId: cart.checkoutId } : {}),
    lastActivity: cart.lastActivity,
    lineItems: compactLines(shape),
  };
  const event = newEvent(ctx, AutomationEventType.cartAbandoned, cart.id, data);
  const ts = nowIso();
  // The mark and the event commit together, and only while the cart is still the one read in this idle period.
  const results = await commit(
    ctx,
    [
      rawStatement(
        ctx.db,
        sql`INSERT INTO cart_abandonment_marks (cart_id, idle_since, event_id, marked_date)
          SELECT ${cart.id}, ${cart.lastActivity}, ${event.id}, ${ts}
          WHERE EXISTS (SELECT 1 FROM carts WHERE id = ${cart.id} AND status = 'ACTIVE' AND last_activity = ${cart.lastActivity})
          ON CONFLICT (cart_id) DO UPDATE SET idle_since = excluded.idle_since, event_id = excluded.event_id, marked_date = excluded.marked_date
          WHERE cart_abandonment_marks.idle_since <> excluded.idle_since`,
      ),
      outboxInsertIfChanged(ctx.db, event),
    ],
    (r) => (r[1].meta.changes ? [event] : []),
  );
  return Boolean(results[1].meta.changes);
}
