import { env, SELF } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it, vi, afterEach } from "vitest";
import { AutomationEventType } from "#worker/automations/events";
import { notifyRequests, requestsForVariants } from "#worker/automations/back-in-stock";
import { unsubscribe, type EmailTransport } from "#worker/email/send";
import { runSweeps } from "#worker/app/sweeps";
import type { EventEnvelope } from "#worker/events/outbox";
import { api, createProduct, getQuery, merchant, unique } from "../helpers";
import { newVisitor } from "../cart/cart-fixtures";
import { DEFAULT_VARIANT_ID, EVENT, logRows, sizedProduct, stockOf, trackedProduct, variantOf } from "../orders/inventory-fixtures";
import { deliver, emailsTo, outboxEvents, serviceCtx } from "./fixtures";

/**
 * Back in stock: a shopper asks to hear when an item is back; when its stock goes from none to some (whatever moved
 * it) the request moves to PROCESSING, the shopper gets one email, and it ends NOTIFICATION_SENT or FAILED.
 * Inventory updates from a warehouse set or adjust stock, notify, and open low-stock tasks.
 */

afterEach(() => vi.restoreAllMocks());

const BIS = "/back-in-stock-service/v1/back-in-stock-notification-requests";
const STORES = "215238eb-22a5-4c36-9e7b-e7c08025e04e";

const ask = (email: string, catalogItemId: string, variantId?: string, key?: string) =>
  api("POST", BIS, {
    ...(key ? { key } : {}),
    body: {
      request: {
        email,
        catalogReference: { appId: STORES, catalogItemId, ...(variantId ? { options: { variantId } } : {}) },
        itemUrl: "https://evil.example/phish",
      },
      itemDetails: { name: "Spoofed", price: "1" },
    },
  });

const requestRow = (id: string) => env.DB.prepare("SELECT * FROM back_in_stock_requests WHERE id = ?").bind(id).first<Record<string, any>>();

/** Delivers a product's inventory events (of the types given) written since `after` outbox rows. */
async function deliverInventoryEvents(productId: string, skip: number, types = [EVENT.stockStatus, EVENT.variantsChanged]) {
  const events = (await outboxEvents(productId)).slice(skip).filter((e) => types.includes(e.type));
  if (events.length) await deliver(events);
  return events;
}

const setStock = (productId: string, quantity: number, variantId = DEFAULT_VARIANT_ID) =>
  merchant("PATCH", `/stores/v2/inventoryItems/product/${productId}`, { inventoryItem: { variants: [{ variantId, quantity }] } });

describe("back-in-stock requests", () => {
  it("end to end: request → stock set through the API → PROCESSING → one email → NOTIFICATION_SENT; a second restock sends nothing", async () => {
    const p = await trackedProduct(0, { priceData: { price: 18 }, media: [{ url: "https://images.example/lamp.jpg", width: 600, height: 600 }] });
    const email = `waiting-${unique()}@example.com`;

    // Anyone may ask (a storefront form): status RECEIVED, with its created event.
    const created = await ask(email, p.id);
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { request } = created.body;
    expect(request).toMatchObject({ email, status: "RECEIVED", catalogReference: { appId: STORES, catalogItemId: p.id } });
    expect((await outboxEvents(request.id, AutomationEventType.backInStockCreated))[0].data).toMatchObject({
      slug: "created",
      createdEvent: { entity: { id: request.id, email } },
    });
    // The same email and item again answers the same request.
    const again = await ask(email.toUpperCase(), p.id);
    expect(again.status).toBe(200);
    expect(again.body.request.id).toBe(request.id);

    // The merchant sets stock: the stock-status event moves it on, and the shopper gets one email.
    const before = (await outboxEvents(p.id)).length;
    expect((await setStock(p.id, 4)).status).toBe(200);
    const delivered = await deliverInventoryEvents(p.id, before);
    expect(delivered.some((e) => e.type === EVENT.stockStatus)).toBe(true);
    const done = await merchant("GET", `${BIS}/${request.id}?id=${request.id}`);
    expect(done.body.request).toMatchObject({ status: "NOTIFICATION_SENT", autoNotified: true });
    const updates = (await outboxEvents(request.id, AutomationEventType.backInStockUpdated)).map(
      (e) => (e.data.updatedEvent as any).currentEntity.status,
    );
    expect(updates).toEqual(["PROCESSING", "NOTIFICATION_SENT"]);

    const [mail, ...more] = await emailsTo(email);
    expect(more).toHaveLength(0);
    expect(mail.template).toBe("back-in-stock");
    expect(mail.subject).toBe(`${p.name} is back in stock at Edge Storefront`);
    expect(mail.html).toContain("$18.00");
    expect(mail.html).toContain("https://images.example/lamp.jpg");
    expect(mail.html).toContain(`/products/${p.slug}`);
    // The link and name come from the catalogue, never from the form.
    expect(mail.html).not.toContain("evil.example");
    expect(mail.html).not.toContain("Spoofed");
    expect(mail.headers["List-Unsubscribe"]).toMatch(/\/email\/unsubscribe\?token=/);

    // Redelivering the same event, or selling out and restocking, sends no second email.
    await deliver(delivered, 2);
    const mid = (await outboxEvents(p.id)).length;
    expect((await setStock(p.id, 0)).status).toBe(200);
    expect((await setStock(p.id, 6)).status).toBe(200);
    await deliverInventoryEvents(p.id, mid);
    expect(await emailsTo(email)).toHaveLength(1);
  });

  it("notifies a variant's requests and the product-wide ones, not another variant's", async () => {
    const p = await sizedProduct(0);
    const s = variantOf(p, "S").id;
    const m = variantOf(p, "M").id;
    const forS = `s-${unique()}@example.com`;
    const forM = `m-${unique()}@example.com`;
    const forAny = `any-${unique()}@example.com`;
    await ask(forS, p.id, s);
    await ask(forM, p.id, m);
    await ask(forAny, p.id);
    const before = (await outboxEvents(p.id)).length;
    expect((await setStock(p.id, 2, s)).status).toBe(200);
    await deliverInventoryEvents(p.id, before);
    expect(await emailsTo(forS)).toHaveLength(1);
    expect(await emailsTo(forAny)).toHaveLength(1);
    expect(await emailsTo(forM)).toHaveLength(0);
    expect((await emailsTo(forS))[0].html).toContain("</strong> (S)");
  });

  it("an unsubscribed shopper's request ends FAILED with the reason", async () => {
    const first = await trackedProduct(0);
    const second = await trackedProduct(0);
    const email = `optout-${unique()}@example.com`;
    await ask(email, first.id);
    const { body } = await ask(email, second.id);
    let before = (await outboxEvents(first.id)).length;
    await setStock(first.id, 1);
    await deliverInventoryEvents(first.id, before);
    const [mail] = await emailsTo(email);
    const token = /token=([A-Za-z0-9_-]+)>/.exec(mail.headers["List-Unsubscribe"])![1];
    await unsubscribe(serviceCtx().ctx, token);
    before = (await outboxEvents(second.id)).length;
    await setStock(second.id, 1);
    await deliverInventoryEvents(second.id, before);
    expect((await requestRow(body.request.id))!).toMatchObject({ status: "FAILED", reason: "UNSUBSCRIBED" });
    expect((await emailsTo(email)).map((m) => m.status)).toEqual(["QUEUED", "SUPPRESSED"]);
  });

  it("the merchant can report items back in stock, read, query (GET ?.r= and POST) and delete", async () => {
    const p = await trackedProduct(0);
    const email = `report-${unique()}@example.com`;
    const { body } = await ask(email, p.id);
    const id = body.request.id;

    const byGet = await getQuery(
      BIS,
      { query: { filter: { "catalogReference.catalogItemId": p.id }, cursorPaging: { limit: 5 } } },
      "test-owner-key",
    );
    expect(byGet.status, JSON.stringify(byGet.body)).toBe(200);
    expect(byGet.body.requests.map((r: any) => r.id)).toEqual([id]);
    const byPost = await merchant("POST", `${BIS}/query`, { query: { filter: { email: { $eq: email } } } });
    expect(byPost.body.requests.map((r: any) => r.id)).toEqual([id]);
    expect(byPost.body.metadata).toMatchObject({ count: 1, total: 1 });

    const reported = await merchant("POST", `${BIS}/report-items-back-in-stock`, {
      catalogReference: { appId: STORES, catalogItemId: p.id },
      itemDetails: { name: "x" },
    });
    expect(reported.status, JSON.stringify(reported.body)).toBe(200);
    expect(reported.body).toEqual({});
    expect((await requestRow(id))!).toMatchObject({ status: "NOTIFICATION_SENT" });
    expect(await emailsTo(email)).toHaveLength(1);
    // Asking again after being notified arms the same request again.
    expect((await ask(email, p.id)).body.request).toMatchObject({ id, status: "RECEIVED" });

    expect(await merchant("DELETE", `${BIS}/${id}?id=${id}`)).toMatchObject({ status: 200, body: {} });
    expect(await requestRow(id)).toBeNull();
    expect(await outboxEvents(id, AutomationEventType.backInStockDeleted)).toHaveLength(1);
    expect((await merchant("GET", `${BIS}/${id}`)).status).toBe(404);
    expect((await merchant("DELETE", `${BIS}/${id}`)).status).toBe(404);
  });

  it("refuses bad input with field violations and stores nothing; reading needs the merchant", async () => {
    const p = await trackedProduct(0);
    const count = async () =>
      (await env.DB.prepare("SELECT count(*) AS n FROM back_in_stock_requests WHERE catalog_item_id = ?").bind(p.id).first<{ n: number }>())!.n;
    const badEmail = await ask("not-an-email", p.id);
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.details.validationError.fieldViolations[0]).toMatchObject({ field: "request.email", violatedRule: "FORMAT" });
    const badProduct = await ask(`x-${unique()}@example.com`, "no-such-product");
    expect(badProduct.body.details.validationError.fieldViolations[0].field).toBe("request.catalogReference.catalogItemId");
    const badVariant = await ask(`x-${unique()}@example.com`, p.id, "no-such-variant");
    expect(badVariant.body.details.validationError.fieldViolations[0].field).toBe("request.catalogReference.options.variantId");
    const missing = await api("POST", BIS, { body: { request: { email: "a@example.com" } } });
    expect(missing.status).toBe(400);
    expect(await count()).toBe(0);

    const visitor = await newVisitor();
    for (const [method, path] of [
      ["GET", `${BIS}/x`],
      ["DELETE", `${BIS}/x`],
      ["POST", `${BIS}/query`],
      ["GET", BIS],
      ["POST", `${BIS}/report-items-back-in-stock`],
    ] as const) {
      expect((await api(method, path, { body: method === "POST" ? {} : undefined })).status, path).toBe(401);
      expect((await api(method, path, { key: visitor.token, body: method === "POST" ? {} : undefined })).status, path).toBe(403);
    }
    const bothRefs = await merchant("POST", `${BIS}/report-items-back-in-stock`, { itemDetails: {} });
    expect(bothRefs.status).toBe(400);
  });

  it("rate-limits requests per email", async () => {
    const p = await trackedProduct(0);
    const email = `limit-${unique()}@example.com`;
    const variants = await sizedProduct(0);
    let last = 0;
    for (let i = 0; i < 21; i++) last = (await ask(email, i % 2 ? p.id : variants.id, i % 2 ? undefined : variantOf(variants, "S").id)).status;
    expect(last).toBe(429);
  });
});

describe("back-in-stock emails the transport refused at first", () => {
  it("stay PROCESSING while the email sweep retries, then end NOTIFICATION_SENT (or FAILED when the retries run out)", async () => {
    const p = await trackedProduct(0, { priceData: { price: 12 } });
    const [lucky, unlucky] = [`retry-ok-${unique()}@example.com`, `retry-bad-${unique()}@example.com`];
    const ids = [];
    for (const email of [lucky, unlucky]) {
      const created = await ask(email, p.id);
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids.push(created.body.request.id);
    }
    const refused = new Set([lucky, unlucky]);
    const transport: EmailTransport = {
      send: async (m) => {
        if (refused.has(m.to)) throw new Error("451 try again later");
      },
    };
    const withMail = { SEND_EMAIL: transport, EMAIL_FROM: "shop@shop.test" };
    const { ctx, settled } = serviceCtx({ kind: "apiKey", keyId: "test", role: "OWNER" }, withMail);
    expect(await notifyRequests(ctx, requestsForVariants(p.id, [DEFAULT_VARIANT_ID]), `test:${unique()}`)).toEqual({ sent: 0, failed: 0, held: 2 });
    await settled();
    for (const id of ids) expect(await requestRow(id)).toMatchObject({ status: "PROCESSING", email_id: expect.any(String) });

    // The transport takes the first address again; the other keeps failing until its retries run out.
    refused.delete(lucky);
    const sweepEnv = { ...env, ...withMail } as Env;
    let at = Date.now();
    for (let i = 0; i < 6; i++) await runSweeps(sweepEnv, { now: new Date((at += 200 * 60_000)) });
    expect(await requestRow(ids[0])).toMatchObject({ status: "NOTIFICATION_SENT", auto_notified: 1 });
    expect(await requestRow(ids[1])).toMatchObject({ status: "FAILED", reason: "SEND_FAILED: 451 try again later" });
    const events = await outboxEvents(ids[0], AutomationEventType.backInStockUpdated);
    expect((events.at(-1)!.data as any).updatedEvent.currentEntity.status).toBe("NOTIFICATION_SENT");
  });
});

describe("inventory updates from a warehouse (inventory.updated)", () => {
  const update = (source: string, items: unknown[]): EventEnvelope => ({
    id: crypto.randomUUID(),
    type: AutomationEventType.inventoryUpdated,
    entityId: source,
    eventTime: new Date().toISOString(),
    actor: { type: "APP", id: source },
    data: { items },
  });

  it("sets and adjusts stock through the inventory service, notifies back-in-stock requests and opens low-stock tasks", async () => {
    const restocked = await trackedProduct(0, { priceData: { price: 9 } });
    const sold = await trackedProduct(10);
    const email = `warehouse-${unique()}@example.com`;
    await ask(email, restocked.id);
    const source = `erp-${unique()}`;
    const before = (await outboxEvents(restocked.id)).length;
    // Numbers arrive as strings from some systems: the schema coerces them.
    const event = update(source, [
      { productId: restocked.id, setQuantity: "3", sku: "LAMP-1" },
      { productId: sold.id, variantId: DEFAULT_VARIANT_ID, adjustBy: "-8" },
    ]);
    await deliver([event]);
    expect(await stockOf(restocked.id)).toMatchObject({ quantity: 3, in_stock: 1 });
    expect(await stockOf(sold.id)).toMatchObject({ quantity: 2 });
    const [log] = (await logRows(sold.id)).slice(-1);
    expect(log).toMatchObject({ cause: "MANUAL", delta: -8, actor_type: "APP" });
    expect(log.reason).toContain(source);

    const tasks = (await merchant("GET", "/api/v1/tasks?status=OPEN&kind=LOW_STOCK&limit=100")).body.tasks;
    expect(tasks.find((t: any) => t.entityId === restocked.id)?.title).toContain("(3 left)");
    expect(tasks.find((t: any) => t.entityId === sold.id)?.title).toContain("(2 left)");

    // The inventory service's own events carry on to back in stock.
    await deliverInventoryEvents(restocked.id, before);
    expect(await emailsTo(email)).toHaveLength(1);

    // Redelivered, the adjustment is not applied twice.
    await deliver([event], 2);
    expect(await stockOf(sold.id)).toMatchObject({ quantity: 2 });
    expect(await stockOf(restocked.id)).toMatchObject({ quantity: 3 });
  });

  it("names a low variant in its task by its choices and SKU, not its id", async () => {
    const p = await createProduct({
      name: `Low Tee ${unique()}`,
      manageVariants: true,
      stock: { trackInventory: true, quantity: 10 },
      productOptions: [
        { name: "Size", choices: [{ value: "S" }, { value: "M" }] },
        { name: "Color", choices: [{ value: "Red" }, { value: "Blue" }] },
      ],
      variants: [{ choices: { Size: "S", Color: "Red" }, sku: `TEE-S-RED-${unique()}` }],
    });
    const v = p.variants.find((x: any) => x.choices.Size === "S" && x.choices.Color === "Red");
    await deliver([update(`erp-${unique()}`, [{ productId: p.id, variantId: v.id, setQuantity: 2 }])]);
    const tasks = (await merchant("GET", "/api/v1/tasks?status=OPEN&kind=LOW_STOCK&limit=100")).body.tasks;
    const task = tasks.find((t: any) => t.entityId === p.id);
    expect(task.title).toBe(`Low stock: ${p.name} — S / Red (2 left)`);
    expect(task.description).toContain(`Only 2 left of ${p.name} (S / Red, SKU ${v.variant.sku})`);
    expect(`${task.title} ${task.description}`).not.toContain(v.id);
  });

  it("two copies of an adjustment processed at the same instant change stock once", async () => {
    const p = await trackedProduct(20);
    const event = update(`erp-${unique()}`, [{ productId: p.id, adjustBy: -5 }]);
    const both = await Promise.all([deliver([event]), deliver([event]), deliver([event], 2)]);
    expect(both).toHaveLength(3);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 15 });
    expect((await logRows(p.id)).filter((r) => r.delta === -5)).toHaveLength(1);
    // And the record of the step is what stops it.
    const claims = await env.DB.prepare("SELECT processor FROM processed_events WHERE event_id = ? ORDER BY processor")
      .bind(event.id)
      .all<{ processor: string }>();
    expect(claims.results.map((r) => r.processor)).toContain("inventory-updates/adjust-down");
  });

  it("a malformed payload is recorded dead without touching stock", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    const p = await trackedProduct(7);
    const event = update("erp", [{ productId: p.id, adjustBy: "many" }]);
    await deliver([event]);
    expect(await stockOf(p.id)).toMatchObject({ quantity: 7 });
    const failure = await env.DB.prepare("SELECT state, error FROM event_failures WHERE id = ?")
      .bind(event.id)
      .first<{ state: string; error: string }>();
    expect(failure).toMatchObject({ state: "DEAD" });
    expect(failure!.error).toContain("adjustBy");
  });

  it("end to end from a signed incoming webhook: the real queue sets stock, notifies the shopper and opens a low-stock task", async () => {
    const p = await trackedProduct(0, { priceData: { price: 11 } });
    const email = `webhook-${unique()}@example.com`;
    await ask(email, p.id);
    const created = await merchant("POST", "/api/v1/webhook-sources", { name: `warehouse-${unique()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const { source, secret } = created.body;
    const post = (data: unknown) => {
      const body = JSON.stringify({ type: "inventory.updated", timestamp: new Date().toISOString(), data });
      const id = `msg_${unique()}${unique()}`;
      const headers = {
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(Date.now() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, new Date(), body),
      };
      return SELF.fetch(`https://shop.test/webhooks/${source.name}`, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body,
      });
    };

    // A payload this part's schema refuses never reaches the queue: 400 with the field.
    const bad = await post({ items: [{ productId: p.id, setQuantity: -1 }] });
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as any;
    expect(badBody.details.validationError.fieldViolations[0].field).toBe("data.items[0].setQuantity");

    const ok = await post({ items: [{ productId: p.id, setQuantity: "2" }] });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).status).toBe("ACCEPTED");
    const until = async (check: () => Promise<boolean>, what: string) => {
      for (const end = Date.now() + 10_000; !(await check()); ) {
        if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until(async () => (await stockOf(p.id))?.quantity === 2, "the stock to be set");
    await until(async () => (await emailsTo(email)).length === 1, "the back-in-stock email");
    const [log] = (await logRows(p.id)).slice(-1);
    expect(log.reason).toContain(source.name);
    const tasks = (await merchant("GET", "/api/v1/tasks?status=OPEN&kind=LOW_STOCK&limit=100")).body.tasks;
    expect(tasks.some((t: any) => t.entityId === p.id)).toBe(true);
  });
});
