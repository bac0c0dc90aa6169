import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { restoreAbandonedCart } from "#worker/automations/abandoned-carts";
import { AutomationEventType } from "#worker/automations/events";
import { CartEventType } from "#worker/cart/shapes";
import { unsubscribe } from "#worker/email/send";
import { recordingD1, type Ran } from "../d1-recording";
import { api, createProduct, merchant, queryPlan, unique } from "../helpers";
import { cartCalls, item, newVisitor } from "../cart/cart-fixtures";
import { fillCheckout, placeOrder } from "../orders/order-fixtures";
import { runSweeps } from "#worker/app/sweeps";
import type { EmailTransport } from "#worker/email/send";
import { HOUR, MINUTE, abandonedCheckoutOf, cartRow, deliver, emailsTo, outboxEvents, serviceCtx, setCartEmail, sweepAt } from "./fixtures";

/**
 * Abandoned carts with a controllable clock: the sweep reports an idle cart once, its processor makes the record and
 * schedules the recovery emails, the sweep sends them when due, and an order from the cart recovers it.
 */

afterEach(() => vi.restoreAllMocks());

async function product(price = 30, name = `Recovery Mug ${unique()}`) {
  return createProduct({
    name,
    priceData: { price },
    stock: { trackInventory: true, quantity: 100 },
    media: [{ url: "https://images.example/mug.jpg", width: 800, height: 800, altText: "A mug" }],
  });
}

/** A visitor's cart with `quantity` of a product and a buyer email; returns the cart and its last activity (ms). */
async function abandonedCandidate(opts: { price?: number; quantity?: number; email?: string | null } = {}) {
  const p = await product(opts.price);
  const visitor = await newVisitor();
  const cart = cartCalls(visitor.token);
  const added = await cart.add({ lineItems: [item(p.id, opts.quantity ?? 2)] });
  expect(added.status, JSON.stringify(added.body)).toBe(200);
  const email = opts.email === undefined ? `shopper-${unique()}@example.com` : opts.email;
  if (email) await setCartEmail(visitor.token, email);
  const row = await cartRow(added.body.cart.id);
  return { product: p, visitor, cart, cartId: added.body.cart.id as string, email, idleSince: Date.parse(row!.last_activity) };
}

/** Sweeps past the idle threshold, delivers the abandonment event, and returns it with the record. */
async function abandon(c: { cartId: string; idleSince: number }) {
  await sweepAt(c.idleSince + 61 * MINUTE);
  const [event] = await outboxEvents(c.cartId, AutomationEventType.cartAbandoned);
  expect(event, "the sweep reports the idle cart").toBeDefined();
  await deliver([event]);
  const record = await abandonedCheckoutOf(c.cartId);
  expect(record).toBeDefined();
  return { event, record, abandonTime: Date.parse(event.data.abandonTime as string) };
}

const activityTypes = (r: { activities: { type: string }[] }) => r.activities.map((a) => a.type);

describe("abandoned carts", () => {
  it("the full story: abandon → record and scheduled emails → emails at 1 h and 24 h → a checkout recovers it and the 72 h email is cancelled", async () => {
    const c = await abandonedCandidate({ price: 30, quantity: 2 });

    // Idle for 30 minutes is not abandoned; past 60 minutes it is, once.
    await sweepAt(c.idleSince + 30 * MINUTE);
    expect(await outboxEvents(c.cartId, AutomationEventType.cartAbandoned)).toHaveLength(0);
    await sweepAt(c.idleSince + 61 * MINUTE);
    await sweepAt(c.idleSince + 62 * MINUTE);
    const events = await outboxEvents(c.cartId, AutomationEventType.cartAbandoned);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event.data).toMatchObject({
      cartId: c.cartId,
      creationTime: expect.stringMatching(/^\d{4}-/),
      abandonTime: new Date(c.idleSince + 61 * MINUTE).toISOString(),
      totals: { subtotal: 60, total: expect.any(Number) },
      buyerInfo: { id: c.visitor.visitorId, identityType: "VISITOR", email: c.email },
      itemsCount: 2,
    });
    expect(typeof (event.data.totals as { total: unknown }).total).toBe("number");
    expect(
      (await env.DB.prepare("SELECT flushed_at FROM outbox WHERE id = ?").bind(event.id).first<{ flushed_at: string | null }>())!.flushed_at,
    ).not.toBeNull();

    // The processor: record ABANDONED, three emails scheduled (1 h, 24 h, 72 h), a recovery link, no task (a small cart).
    await deliver([event]);
    const record = await abandonedCheckoutOf(c.cartId);
    const abandonTime = Date.parse(event.data.abandonTime as string);
    // The record's own domain event carries it as the API shows it (subscribers of abandoned_checkout_created); its
    // link is on the shop's public address (the API answers on the address it was called at).
    const sameLink = (r: { checkoutUrl: string }) => ({
      ...r,
      checkoutUrl: expect.stringMatching(new RegExp(`/cart/recover/${r.checkoutUrl.split("/").pop()}$`)),
    });
    const [createdEvent] = await outboxEvents(record.id, AutomationEventType.abandonedCheckoutCreated);
    expect(createdEvent.data).toMatchObject({
      entityFqdn: "wix.ecom.v1.abandoned_checkout",
      slug: "created",
      createdEvent: { entity: sameLink(record) },
    });
    expect(record).toMatchObject({
      cartId: c.cartId,
      status: "ABANDONED",
      buyerInfo: { visitorId: c.visitor.visitorId, email: c.email },
      subtotalPrice: { amount: "60.00" },
    });
    expect(record.checkoutUrl).toMatch(/\/cart\/recover\/[A-Za-z0-9_-]{20,}$/);
    expect(record.activities.map((a: any) => [a.type, a.details.step, a.details.dueDate])).toEqual([
      ["SCHEDULED", 1, new Date(abandonTime + HOUR).toISOString()],
      ["SCHEDULED", 2, new Date(abandonTime + 24 * HOUR).toISOString()],
      ["SCHEDULED", 3, new Date(abandonTime + 72 * HOUR).toISOString()],
    ]);
    expect(record.lineItems[0].productName.original).toBe(c.product.name);

    // Not due yet at 59 minutes; the first email at 1 hour, with the items, the recovery link and List-Unsubscribe.
    await sweepAt(abandonTime + 59 * MINUTE);
    expect(await emailsTo(c.email!)).toHaveLength(0);
    await sweepAt(abandonTime + HOUR + MINUTE);
    let mails = await emailsTo(c.email!);
    expect(mails).toHaveLength(1);
    const [first] = mails;
    expect(first.template).toBe("abandoned-cart");
    expect(first.subject).toContain("You left something in your");
    expect(first.html).toContain(c.product.name);
    expect(first.html).toContain("https://images.example/mug.jpg");
    expect(first.html).toContain(`href="${record.checkoutUrl.replace("https://shop.test", "http://localhost:8787")}"`);
    expect(first.text).toContain(`2 x ${c.product.name}: $60.00`);
    expect(first.text).toContain("/cart/recover/");
    expect(first.headers["List-Unsubscribe"]).toMatch(/^<http:\/\/localhost:8787\/email\/unsubscribe\?token=[A-Za-z0-9_-]+>$/);
    expect(first.headers["List-Unsubscribe-Post"]).toBe("List-Unsubscribe=One-Click");
    expect(first.html).toContain("Unsubscribe</a>");

    // A second sweep at the same time sends nothing more; the 24-hour one follows.
    await sweepAt(abandonTime + HOUR + 2 * MINUTE);
    expect(await emailsTo(c.email!)).toHaveLength(1);
    await sweepAt(abandonTime + 24 * HOUR + MINUTE);
    mails = await emailsTo(c.email!);
    expect(mails).toHaveLength(2);
    expect(mails[1].subject).toContain("Still thinking it over?");

    // The shopper checks out that cart and places the order: the cart is recovered.
    const co = await c.cart.checkout();
    expect(co.status, JSON.stringify(co.body)).toBe(200);
    await fillCheckout(c.visitor.token, co.body.checkoutId, c.email!);
    const placed = await placeOrder(c.visitor.token, co.body.checkoutId);
    expect(placed.status, JSON.stringify(placed.body)).toBe(200);
    const completed = (await outboxEvents(c.cartId, CartEventType.deleted)).filter((e) => e.data.completedByOrderId);
    expect(completed).toHaveLength(1);
    await deliver(completed);

    const recovered = await abandonedCheckoutOf(c.cartId);
    expect(recovered).toMatchObject({
      status: "RECOVERED",
      recoveredOrderId: placed.body.orderId,
      checkoutRecoveredDate: expect.stringMatching(/^\d{4}-/),
    });
    expect(Number(recovered.recoveredRevenue.amount)).toBeGreaterThanOrEqual(60);
    const [recoveredEvent] = await outboxEvents(c.cartId, AutomationEventType.cartRecovered);
    expect(recoveredEvent.data).toMatchObject({
      cartId: c.cartId,
      creationTime: event.data.creationTime,
      abandonedTime: event.data.abandonTime,
      recoveredTime: expect.stringMatching(/^\d{4}-/),
    });
    const [recordRecovered] = await outboxEvents(record.id, AutomationEventType.abandonedCheckoutRecovered);
    expect(recordRecovered.data).toMatchObject({
      entityFqdn: "wix.ecom.v1.abandoned_checkout",
      slug: "recovered",
      actionEvent: { body: { abandonedCheckout: sameLink(recovered) } },
    });
    const steps = await env.DB.prepare("SELECT step, status, reason FROM recovery_emails WHERE abandoned_checkout_id = ? ORDER BY step")
      .bind(record.id)
      .all();
    expect(steps.results).toEqual([
      { step: 1, status: "SENT", reason: null },
      { step: 2, status: "SENT", reason: null },
      { step: 3, status: "CANCELED", reason: "RECOVERED" },
    ]);

    // 72 hours later nothing more is sent.
    await sweepAt(abandonTime + 73 * HOUR);
    expect((await emailsTo(c.email!)).map((m) => m.template)).toEqual(["abandoned-cart", "abandoned-cart", "order-confirmation"]);
    expect(activityTypes(await abandonedCheckoutOf(c.cartId))).toEqual(["SCHEDULED", "SCHEDULED", "SCHEDULED", "EMAIL_SENT", "EMAIL_SENT"]);

    // The recovered revenue shows in the query metadata and the summary.
    const query = await merchant("POST", "/ecom/v1/abandoned-checkout/query", { query: { filter: { status: "RECOVERED" } } });
    expect(query.status).toBe(200);
    expect(Number(query.body.metadata.recoveredRevenue.amount)).toBeGreaterThanOrEqual(Number(recovered.recoveredRevenue.amount));
    const summary = await merchant("GET", "/api/v1/abandoned-checkouts/summary");
    expect(summary.body.summary.recoveredCount).toBeGreaterThanOrEqual(1);
  });

  it("does not report a cart without a contact email, nor an empty one", async () => {
    const noEmail = await abandonedCandidate({ email: null });
    const visitor = await newVisitor();
    const empty = await setCartEmail(visitor.token, `empty-${unique()}@example.com`);
    expect(empty.lineItems).toEqual([]);
    await sweepAt(noEmail.idleSince + 2 * HOUR);
    expect(await outboxEvents(noEmail.cartId, AutomationEventType.cartAbandoned)).toHaveLength(0);
    expect(await outboxEvents(empty.id, AutomationEventType.cartAbandoned)).toHaveLength(0);
  });

  it("decides each idle period once: later sweeps do not read the carts decided before, and new activity brings a cart back", async () => {
    const noEmail = await abandonedCandidate({ email: null });
    const reachable = await abandonedCandidate();
    const at = Math.max(noEmail.idleSince, reachable.idleSince) + 2 * HOUR;
    await sweepAt(at);
    expect(await outboxEvents(reachable.cartId, AutomationEventType.cartAbandoned)).toHaveLength(1);
    expect(await outboxEvents(noEmail.cartId, AutomationEventType.cartAbandoned)).toHaveLength(0);
    for (const { cartId } of [noEmail, reachable]) {
      const row = (await cartRow(cartId))!;
      expect(row.abandon_checked, cartId).toBe(row.last_activity);
    }
    // The next sweep's cart read goes through the index of undecided carts, which holds neither of them any more.
    const ran: Ran[] = [];
    await runSweeps({ ...env, DB: recordingD1(env.DB, ran) } as Env, { now: new Date(at + MINUTE) });
    const cartRead = ran.find((r) => r.sql.includes("FROM carts c INDEXED BY carts_abandon_pending_idx"));
    expect(cartRead, "the sweep reads the undecided carts").toBeDefined();
    expect(await queryPlan(cartRead!)).toMatch(/SEARCH c USING INDEX carts_abandon_pending_idx \(last_activity<\?\)/);
    const undecided = await env.DB.prepare(
      "SELECT id FROM carts INDEXED BY carts_abandon_pending_idx WHERE status = 'ACTIVE' AND abandon_checked IS NOT last_activity AND last_activity < ?",
    )
      .bind(new Date(at).toISOString())
      .all<{ id: string }>();
    expect(undecided.results.map((r) => r.id)).not.toContain(noEmail.cartId);
    expect(undecided.results.map((r) => r.id)).not.toContain(reachable.cartId);
    expect(await outboxEvents(reachable.cartId, AutomationEventType.cartAbandoned)).toHaveLength(1);

    // The shopper comes back and gives an email: a new idle period, reported by the next sweep past the threshold.
    await setCartEmail(noEmail.visitor.token, `back-${unique()}@example.com`);
    const back = (await cartRow(noEmail.cartId))!;
    expect(back.abandon_checked).not.toBe(back.last_activity);
    await sweepAt(Date.parse(back.last_activity) + 2 * HOUR);
    expect(await outboxEvents(noEmail.cartId, AutomationEventType.cartAbandoned)).toHaveLength(1);
  });

  it("keeps looking at an idle cart without an email while its checkout may still get one", async () => {
    const c = await abandonedCandidate({ email: null });
    const checkout = await c.cart.checkout();
    expect(checkout.status, JSON.stringify(checkout.body)).toBe(200);
    const idleSince = Date.parse((await cartRow(c.cartId))!.last_activity);
    await sweepAt(idleSince + 2 * HOUR);
    expect(await outboxEvents(c.cartId, AutomationEventType.cartAbandoned)).toHaveLength(0);
    expect((await cartRow(c.cartId))!.abandon_checked).toBeNull();
    // The email arrives on the checkout only (the cart itself does not change): the next sweep reports the cart.
    const patched = await api("PATCH", `/ecom/v1/checkouts/${checkout.body.checkoutId}`, {
      key: c.visitor.token,
      body: { checkout: { buyerInfo: { email: `checkout-${unique()}@example.com` } } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    await sweepAt(idleSince + 2 * HOUR + MINUTE);
    expect(await outboxEvents(c.cartId, AutomationEventType.cartAbandoned)).toHaveLength(1);
  });

  it("records why an email was not sent: unsubscribed, cart emptied, no email", async () => {
    // Unsubscribed after the first email: the second is not sent.
    const a = await abandonedCandidate();
    const { record: ra, abandonTime: ta } = await abandon(a);
    await sweepAt(ta + HOUR + MINUTE);
    const [mail] = await emailsTo(a.email!);
    const token = /token=([A-Za-z0-9_-]+)>/.exec(mail.headers["List-Unsubscribe"])![1];
    const { ctx } = serviceCtx({ kind: "anonymous" });
    expect(await unsubscribe(ctx, token)).toEqual({ email: a.email });
    await sweepAt(ta + 24 * HOUR + MINUTE);
    const mails = await emailsTo(a.email!);
    expect(mails.map((m) => m.status)).toEqual(["QUEUED", "SUPPRESSED"]);
    let rec = await abandonedCheckoutOf(a.cartId);
    expect(rec.activities.filter((x: any) => x.type !== "SCHEDULED").map((x: any) => [x.type, x.reason ?? null])).toEqual([
      ["EMAIL_SENT", null],
      ["EMAIL_NOT_SENT", "UNSUBSCRIBED"],
    ]);
    expect(ra.id).toBe(rec.id);

    // The cart was emptied before the first email.
    const b = await abandonedCandidate();
    await abandon(b);
    const lines = (await b.cart.get()).body.cart.lineItems.map((l: any) => l.id);
    expect((await b.cart.remove(lines)).status).toBe(200);
    const { abandonTime: tb } = {
      abandonTime: Date.parse((await outboxEvents(b.cartId, AutomationEventType.cartAbandoned))[0].data.abandonTime as string),
    };
    await sweepAt(tb + HOUR + MINUTE);
    expect(await emailsTo(b.email!)).toHaveLength(0);
    rec = await abandonedCheckoutOf(b.cartId);
    expect(rec.activities.find((x: any) => x.type === "EMAIL_NOT_SENT")).toMatchObject({ reason: "CART_EMPTIED", details: { step: 1 } });

    // The shopper removed their email from the cart.
    const d = await abandonedCandidate();
    const { abandonTime: td } = await abandon(d);
    await setCartEmail(d.visitor.token, null);
    await sweepAt(td + HOUR + MINUTE);
    expect(await emailsTo(d.email!)).toHaveLength(0);
    rec = await abandonedCheckoutOf(d.cartId);
    expect(rec.activities.find((x: any) => x.type === "EMAIL_NOT_SENT")).toMatchObject({ reason: "NO_EMAIL" });
  });

  it("after the sweeps were stopped past several reminders, sends only the latest one", async () => {
    const c = await abandonedCandidate();
    const { abandonTime } = await abandon(c);
    await sweepAt(abandonTime + 73 * HOUR);
    const mails = await emailsTo(c.email!);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toContain("Still thinking it over?");
    const rec = await abandonedCheckoutOf(c.cartId);
    expect(rec.activities.filter((a: any) => a.type !== "SCHEDULED").map((a: any) => [a.type, a.reason ?? null, a.details.step])).toEqual([
      ["EMAIL_NOT_SENT", "SUPERSEDED", 1],
      ["EMAIL_NOT_SENT", "SUPERSEDED", 2],
      ["EMAIL_SENT", null, 3],
    ]);
  });

  it("a recovery email the transport refused is retried by the email sweep, then recorded as sent", async () => {
    const c = await abandonedCandidate();
    const { record, abandonTime } = await abandon(c);
    const calls: string[] = [];
    let refuse = true;
    const transport: EmailTransport = {
      send: async (m) => {
        if (m.to !== c.email) return;
        calls.push(m.subject);
        if (refuse) throw new Error("451 try again later");
      },
    };
    const withMail = { ...env, SEND_EMAIL: transport, EMAIL_FROM: "shop@shop.test" } as Env;
    const at = abandonTime + HOUR + MINUTE;
    await runSweeps(withMail, { now: new Date(at) });
    const step = () =>
      env.DB.prepare("SELECT status, reason, email_id FROM recovery_emails WHERE abandoned_checkout_id = ? AND step = 1")
        .bind(record.id)
        .first<Record<string, any>>();
    expect(await step()).toMatchObject({ status: "SENDING", email_id: expect.any(String) });
    expect(activityTypes(await abandonedCheckoutOf(c.cartId))).toEqual(["SCHEDULED", "SCHEDULED", "SCHEDULED"]);

    // The same sweep already tried again (the test's clock is far past the 5-minute retry) and was refused; the next
    // retry is 15 minutes after that. The transport is back by then: the email sweep hands it over, and the next
    // sweep records it as sent.
    expect(calls).toHaveLength(2);
    refuse = false;
    await runSweeps(withMail, { now: new Date(at + 10 * MINUTE) });
    expect(calls).toHaveLength(2);
    await runSweeps(withMail, { now: new Date(at + 16 * MINUTE) });
    await runSweeps(withMail, { now: new Date(at + 17 * MINUTE) });
    expect(await step()).toMatchObject({ status: "SENT", reason: null });
    expect(calls).toHaveLength(3);
    const after = await abandonedCheckoutOf(c.cartId);
    expect(activityTypes(after)).toEqual(["SCHEDULED", "SCHEDULED", "SCHEDULED", "EMAIL_SENT"]);
    expect(after.activities[3].details).toMatchObject({ step: 1, to: c.email });
  });

  it("opens a merchant task for a high-value cart", async () => {
    const c = await abandonedCandidate({ price: 150, quantity: 2 });
    const { record } = await abandon(c);
    expect(activityTypes(record)).toContain("TASK_CREATED");
    const tasks = await merchant("GET", "/api/v1/tasks?status=OPEN&kind=ABANDONED_CART&limit=100");
    const task = tasks.body.tasks.find((t: any) => t.entityId === record.id);
    expect(task).toMatchObject({ kind: "ABANDONED_CART", status: "OPEN" });
    expect(task.title).toContain("$300.00");
    expect(task.description).toContain(c.email);
  });

  it("is idempotent under redelivery: the same event twice (or at once) makes one record and one email", async () => {
    const c = await abandonedCandidate();
    await sweepAt(c.idleSince + 61 * MINUTE);
    const [event] = await outboxEvents(c.cartId, AutomationEventType.cartAbandoned);
    await Promise.all([deliver([event]), deliver([event], 2)]);
    await deliver([event], 3);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM abandoned_checkouts WHERE cart_id = ?").bind(c.cartId).first<{ n: number }>();
    expect(count!.n).toBe(1);
    const record = await abandonedCheckoutOf(c.cartId);
    expect(activityTypes(record)).toEqual(["SCHEDULED", "SCHEDULED", "SCHEDULED"]);
    expect(await outboxEvents(record.id, AutomationEventType.abandonedCheckoutCreated)).toHaveLength(1);
    const due = Date.parse(event.data.abandonTime as string) + HOUR + MINUTE;
    await Promise.all([sweepAt(due), sweepAt(due)]);
    await sweepAt(due);
    expect(await emailsTo(c.email!)).toHaveLength(1);
    expect(activityTypes(await abandonedCheckoutOf(c.cartId)).filter((t) => t === "EMAIL_SENT")).toHaveLength(1);
  });

  it("reports a cart again only after a new idle period, and moves the pending emails after it", async () => {
    const c = await abandonedCandidate();
    const { record, abandonTime } = await abandon(c);
    await sweepAt(abandonTime + HOUR + MINUTE);
    expect(await emailsTo(c.email!)).toHaveLength(1);
    // The shopper comes back and changes the cart: held, then a new idle period is reported and reschedules.
    expect((await c.cart.add({ lineItems: [item(c.product.id, 1)] })).status).toBe(200);
    const back = Date.parse((await cartRow(c.cartId))!.last_activity);
    await sweepAt(back + 61 * MINUTE);
    const events = await outboxEvents(c.cartId, AutomationEventType.cartAbandoned);
    expect(events).toHaveLength(2);
    await deliver([events[1]]);
    const again = await abandonedCheckoutOf(c.cartId);
    expect(again.id).toBe(record.id);
    const second = Date.parse(events[1].data.abandonTime as string);
    const steps = await env.DB.prepare("SELECT step, status, due_date FROM recovery_emails WHERE abandoned_checkout_id = ? ORDER BY step")
      .bind(record.id)
      .all<any>();
    expect(steps.results.map((s) => [s.step, s.status, s.due_date])).toEqual([
      [1, "SENT", new Date(abandonTime + HOUR).toISOString()],
      [2, "SCHEDULED", new Date(second + 24 * HOUR).toISOString()],
      [3, "SCHEDULED", new Date(second + 72 * HOUR).toISOString()],
    ]);
    expect(again.subtotalPrice.amount).toBe("90.00");
  });

  it("the recovery link restores the cart in another browser, and an order from it recovers the record", async () => {
    const c = await abandonedCandidate({ quantity: 3 });
    const { record } = await abandon(c);
    const token = record.checkoutUrl.split("/").pop();

    // A new browser (a new visitor) opens the link: that browser's current cart now holds the items.
    const other = await newVisitor();
    const { ctx } = serviceCtx({ kind: "visitor", visitorId: other.visitorId, clientId: "test-client-id" });
    const outcome = await restoreAbandonedCart(ctx, token);
    expect(outcome).toMatchObject({ ok: true, restored: 1, skipped: [] });
    const cart = (await cartCalls(other.token).get()).body.cart;
    expect(cart.lineItems.map((l: any) => [l.catalogReference.catalogItemId, l.quantity])).toEqual([[c.product.id, 3]]);
    // Opening it again changes nothing.
    expect(await restoreAbandonedCart(ctx, token)).toMatchObject({ ok: true, restored: 0 });
    expect((await cartCalls(other.token).get()).body.cart.lineItems[0].quantity).toBe(3);
    // The shopper's own browser: the cart is simply still there.
    const own = serviceCtx({ kind: "visitor", visitorId: c.visitor.visitorId, clientId: "test-client-id" });
    expect(await restoreAbandonedCart(own.ctx, token)).toEqual({ ok: true, cartId: c.cartId, restored: 0, skipped: [] });

    // An order from the restored cart recovers the abandoned checkout.
    const co = await cartCalls(other.token).checkout();
    await fillCheckout(other.token, co.body.checkoutId, c.email!);
    const placed = await placeOrder(other.token, co.body.checkoutId);
    expect(placed.status).toBe(200);
    const completed = (await outboxEvents(cart.id, CartEventType.deleted)).filter((e) => e.data.completedByOrderId);
    await deliver(completed);
    expect(await abandonedCheckoutOf(c.cartId)).toMatchObject({ status: "RECOVERED", recoveredOrderId: placed.body.orderId });
    // A recovered cart's link no longer restores anything.
    expect(await restoreAbandonedCart(ctx, token)).toEqual({ ok: false, reason: "ALREADY_RECOVERED" });
    expect(await restoreAbandonedCart(ctx, "not-a-real-token-at-all-xyz")).toEqual({ ok: false, reason: "NOT_FOUND" });
  });

  it("a recovery link works for the store's recoveryLinkDays after abandonment (default 30)", async () => {
    const c = await abandonedCandidate();
    const { record } = await abandon(c);
    const token = record.checkoutUrl.split("/").pop();
    const other = await newVisitor();
    const { ctx } = serviceCtx({ kind: "visitor", visitorId: other.visitorId, clientId: "test-client-id" });
    const start = (await merchant("GET", "/api/v1/automation-settings")).body.settings;
    expect(start.recoveryLinkDays).toBe(30);
    // Abandoned ten days ago: too old for a 7-day link, fine for 30 days.
    await env.DB.prepare("UPDATE abandoned_checkouts SET abandon_time = ? WHERE id = ?")
      .bind(new Date(Date.now() - 10 * 24 * HOUR).toISOString(), record.id)
      .run();
    try {
      expect((await merchant("PATCH", "/api/v1/automation-settings", { settings: { recoveryLinkDays: 7 } })).body.settings.recoveryLinkDays).toBe(7);
      expect(await restoreAbandonedCart(ctx, token)).toEqual({ ok: false, reason: "EXPIRED" });
      expect((await merchant("PATCH", "/api/v1/automation-settings", { settings: { recoveryLinkDays: 400 } })).status).toBe(400);
    } finally {
      await merchant("PATCH", "/api/v1/automation-settings", { settings: { recoveryLinkDays: start.recoveryLinkDays } });
    }
    expect(await restoreAbandonedCart(ctx, token)).toMatchObject({ ok: true, restored: 1 });
  });
});

describe("abandoned-checkout API", () => {
  it("needs the merchant: 401 without credentials, 403 for a shopper", async () => {
    const visitor = await newVisitor();
    for (const [method, path] of [
      ["POST", "/ecom/v1/abandoned-checkout/query"],
      ["GET", "/ecom/v1/abandoned-checkout/x"],
      ["POST", "/ecom/v1/abandoned-checkouts/x/add-activity"],
      ["GET", "/api/v1/abandoned-checkouts/summary"],
      ["GET", "/api/v1/automation-settings"],
      ["PATCH", "/api/v1/automation-settings"],
    ] as const) {
      expect((await api(method, path, { body: method === "GET" ? undefined : {} })).status, path).toBe(401);
      expect((await api(method, path, { key: visitor.token, body: method === "GET" ? undefined : {} })).status, path).toBe(403);
    }
  });

  it("gets one with its activities, adds custom activities by actor, and refuses bad input without changing anything", async () => {
    const c = await abandonedCandidate();
    const { record } = await abandon(c);
    const got = await merchant("GET", `/ecom/v1/abandoned-checkout/${record.id}?abandonedCheckoutId=${record.id}`);
    expect(got.status).toBe(200);
    expect(got.body.abandonedCheckout).toMatchObject({ id: record.id, status: "ABANDONED", totalPrice: { amount: expect.any(String) } });

    const added = await merchant("POST", `/ecom/v1/abandoned-checkouts/${record.id}/add-activity`, {
      abandonedCheckoutId: record.id,
      customActivity: { title: "Called the shopper", description: "Left a voicemail" },
      actor: { type: "ADMIN" },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const member = await merchant("POST", `/ecom/v1/abandoned-checkouts/${record.id}/add-activity`, {
      customActivity: { title: "Replied by email" },
      actor: { type: "CONTACT", id: "contact-1" },
    });
    const activities = member.body.abandonedCheckout.activities;
    expect(activities.slice(-2)).toMatchObject([
      { type: "CUSTOM_ACTIVITY", actor: { type: "ADMIN" }, details: { title: "Called the shopper", description: "Left a voicemail" } },
      { type: "CUSTOM_ACTIVITY", actor: { type: "CONTACT", id: "contact-1" }, details: { title: "Replied by email" } },
    ]);

    const before = await env.DB.prepare("SELECT count(*) AS n FROM abandoned_checkout_activities WHERE abandoned_checkout_id = ?")
      .bind(record.id)
      .first<{ n: number }>();
    const bad = await merchant("POST", `/ecom/v1/abandoned-checkouts/${record.id}/add-activity`, { actor: { type: "ROBOT" } });
    expect(bad.status).toBe(400);
    expect(bad.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "actor.type", violatedRule: "INVALID_ENUM_VALUE" });
    const badType = await merchant("POST", `/ecom/v1/abandoned-checkouts/${record.id}/add-activity`, { activityType: "DELETED_EVERYTHING" });
    expect(badType.status).toBe(400);
    const after = await env.DB.prepare("SELECT count(*) AS n FROM abandoned_checkout_activities WHERE abandoned_checkout_id = ?")
      .bind(record.id)
      .first<{ n: number }>();
    expect(after!.n).toBe(before!.n);
    expect((await merchant("GET", "/ecom/v1/abandoned-checkout/no-such-id")).status).toBe(404);
    const badQuery = await merchant("POST", "/ecom/v1/abandoned-checkout/query", { query: { filter: { nope: "x" } } });
    expect(badQuery.status).toBe(400);
  });

  it("reads and changes the automation settings; bad values change nothing", async () => {
    const start = (await merchant("GET", "/api/v1/automation-settings")).body.settings;
    expect(start).toMatchObject({ abandonedCartIdleMinutes: expect.any(Number), recoveryEmailDelaysMinutes: expect.any(Array) });
    const bad = await merchant("PATCH", "/api/v1/automation-settings", {
      settings: { abandonedCartIdleMinutes: 0, recoveryEmailDelaysMinutes: [60, 30] },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details.validationError.fieldViolations.map((v: any) => v.field)).toEqual([
      "settings.abandonedCartIdleMinutes",
      "settings.recoveryEmailDelaysMinutes",
    ]);
    expect((await merchant("GET", "/api/v1/automation-settings")).body.settings).toEqual(start);
    const changed = await merchant("PATCH", "/api/v1/automation-settings", { settings: { lowStockThreshold: start.lowStockThreshold } });
    expect(changed.status).toBe(200);
    expect(changed.body.settings).toEqual(start);
  });
});
