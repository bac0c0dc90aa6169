import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import worker from "../../entry/index";
import type { EventEnvelope } from "#worker/events/outbox";
import { runSweeps } from "#worker/app/sweeps";
import { api, merchant } from "../helpers";

/** Shared steps of the automations suites. */

export const MAIN_QUEUE = "edge-storefront-events";
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** The outbox rows of one entity (optionally of one type) as the envelopes the queue carries. */
export async function outboxEvents(entityId: string, type?: string): Promise<EventEnvelope[]> {
  const { results } = await env.DB.prepare("SELECT * FROM outbox WHERE entity_id = ? ORDER BY event_time, rowid")
    .bind(entityId)
    .all<Record<string, string>>();
  return results
    .filter((r) => !type || r.type === type)
    .map((r) => ({
      id: r.id,
      type: r.type,
      entityId: r.entity_id,
      eventTime: r.event_time,
      actor: { type: r.actor_type as EventEnvelope["actor"]["type"], id: r.actor_id },
      data: JSON.parse(r.data),
    }));
}

/** Delivers events to the worker's queue consumer (as the EVENTS queue would) and checks each was acknowledged. */
export async function deliver(events: EventEnvelope[], attempts = 1) {
  const batch = createMessageBatch(
    MAIN_QUEUE,
    events.map((body) => ({ id: crypto.randomUUID(), timestamp: new Date(), attempts, body })),
  );
  const ctx = createExecutionContext();
  await worker.queue(batch, env, ctx);
  const result = await getQueueResult(batch, ctx);
  expect(result.retryMessages, "no message should be retried").toEqual([]);
  expect(result.explicitAcks).toHaveLength(events.length);
  return result;
}

/** Runs the sweeps with the clock at `now`. */
export const sweepAt = (now: number | Date) => runSweeps(env, { now: new Date(now) });

/** Emails sent to an address, oldest first. */
export async function emailsTo(to: string) {
  const { results } = await env.DB.prepare('SELECT * FROM emails WHERE "to" = ? ORDER BY created_date, rowid').bind(to).all<Record<string, any>>();
  return results.map((r) => ({ ...r, headers: r.headers ? JSON.parse(r.headers) : null }) as Record<string, any>);
}

/** The abandoned checkout of a cart through the merchant API (query by cartId), or undefined. */
export async function abandonedCheckoutOf(cartId: string) {
  const res = await merchant("POST", "/ecom/v1/abandoned-checkout/query", { query: { filter: { cartId: { $eq: cartId } }, paging: { limit: 10 } } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.abandonedCheckouts[0] as any;
}

/** A service context (the shop acting on its own, or as the given caller). */
export { serviceCtx } from "../helpers";

/** A cart's row. */
export const cartRow = (id: string) => env.DB.prepare("SELECT * FROM carts WHERE id = ?").bind(id).first<Record<string, any>>();

/** Sets the buyer email on a visitor's cart. */
export async function setCartEmail(token: string, email: string | null) {
  const res = await api("PATCH", "/v1/carts/current", { key: token, body: { cartInfo: { buyerInfo: { email } } } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.cart;
}
