import { Hono } from "hono";
import { z } from "zod";
import { pathId, type AppEnv } from "#worker/platform/http";
import { parseWith, readBody } from "#worker/platform/validation";
import type { KnownEvents } from "./authority";
import { receiveWebhook } from "./incoming";
import {
  addKeyRequest,
  addSourceKey,
  createSource,
  createSourceRequest,
  deleteSource,
  getSource,
  listSourceEvents,
  listSources,
  removeSourceKey,
  rotateKeyRequest,
  rotateSourceKey,
  updateSource,
  updateSourceRequest,
} from "./sources";
import {
  createSubscription,
  createSubscriptionRequest,
  deleteSubscription,
  getDelivery,
  getSubscription,
  listDeliveries,
  listSubscriptions,
  redeliver,
  rotateSubscriptionSecret,
  sendTestEvent,
  updateSubscription,
  updateSubscriptionRequest,
  webhookPublicKey,
} from "./subscriptions";

/**
 * Incoming webhooks, mounted at /webhooks:
 *
 *   POST /webhooks/{source}   Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature; body
 *                             {type, timestamp, data}) or the Wix format (the body is an RS256 JWT), per the source's
 *                             format → 200 {id, status: ACCEPTED | DUPLICATE | UNHANDLED}; 401 bad or stale signature;
 *                             403 a type the source may not send, or one its configurer may no longer apply;
 *                             400 malformed; 404 unknown source; 413 over 128 KB.
 */
export function incomingWebhookRoutes(known: KnownEvents) {
  const routes = new Hono<AppEnv>();
  routes.post("/:source", async (c) => c.json(await receiveWebhook(c.get("ctx"), known, pathId(c, "source"), c.req.raw)));
  return routes;
}

/**
 * Merchant calls at /api/v1 (merchant only, except the public key):
 *
 *   POST   /webhook-sources                      {name, format: standard|wix, description?, secret? | publicKey?,
 *                                                eventTypes? (["inventory.updated"])} → {source, secret?}
 *   GET    /webhook-sources                      → {sources}
 *   GET    /webhook-sources/{id}                 → {source}
 *   PATCH  /webhook-sources/{id}                 {name?, description?, enabled?, eventTypes?} → {source}
 *   POST   /webhook-sources/{id}/keys            {secret? | publicKey?} → {source, keyId, secret?}   (rotation: add…)
 *   DELETE /webhook-sources/{id}/keys/{keyId}    → {source}                                           (…then remove)
 *   POST   /webhook-sources/{id}/rotate          {secret? | publicKey?, overlapMinutes? (1440)} → {source, keyId, secret?}
 *                                                (the current keys expire after the overlap)
 *   DELETE /webhook-sources/{id}                 → {}
 *   GET    /webhook-sources/{id}/events?status=ACCEPTED|UNHANDLED|DUPLICATE|REFUSED&limit=&offset= → {events, metadata}
 *
 *   POST   /webhook-subscriptions                {url, eventTypes: [...] | "*", format?: standard|wix, description?, enabled?} → {subscription, secret?}
 *   GET    /webhook-subscriptions                → {subscriptions}
 *   GET    /webhook-subscriptions/{id}           → {subscription}
 *   PATCH  /webhook-subscriptions/{id}           {url?, eventTypes?, description?, enabled?} → {subscription}
 *   DELETE /webhook-subscriptions/{id}           → {}
 *   POST   /webhook-subscriptions/{id}/rotate-secret            → {subscription, secret}
 *   POST   /webhook-subscriptions/{id}/test      → {delivery} (a signed `webhook.test` event to this subscription alone)
 *   GET    /webhook-subscriptions/{id}/deliveries?status=&limit=&offset= → {deliveries (with attempts), metadata}
 *   GET    /webhook-deliveries/{id}              → {delivery}
 *   POST   /webhook-deliveries/{id}/redeliver    → {delivery}
 *   GET    /webhook-public-key                   → {publicKey (PEM SPKI), algorithm: "RS256"} (public)
 */
export function webhookAdminRoutes(known: KnownEvents) {
  const routes = new Hono<AppEnv>();

  routes.post("/webhook-sources", async (c) => c.json(await createSource(c.get("ctx"), await readBody(c, createSourceRequest), known)));
  routes.get("/webhook-sources", async (c) => c.json(await listSources(c.get("ctx"))));
  routes.get("/webhook-sources/:id", async (c) => c.json(await getSource(c.get("ctx"), pathId(c))));
  routes.patch("/webhook-sources/:id", async (c) =>
    c.json(await updateSource(c.get("ctx"), pathId(c), await readBody(c, updateSourceRequest), known)),
  );
  routes.post("/webhook-sources/:id/keys", async (c) => c.json(await addSourceKey(c.get("ctx"), pathId(c), await readBody(c, addKeyRequest))));
  routes.delete("/webhook-sources/:id/keys/:keyId", async (c) => c.json(await removeSourceKey(c.get("ctx"), pathId(c), pathId(c, "keyId"))));
  routes.post("/webhook-sources/:id/rotate", async (c) =>
    c.json(await rotateSourceKey(c.get("ctx"), pathId(c), await readBody(c, rotateKeyRequest))),
  );
  routes.delete("/webhook-sources/:id", async (c) => c.json(await deleteSource(c.get("ctx"), pathId(c))));
  const sourceEventsQuery = z.object({
    status: z.enum(["ACCEPTED", "UNHANDLED", "DUPLICATE", "REFUSED"]).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  });
  routes.get("/webhook-sources/:id/events", async (c) =>
    c.json(await listSourceEvents(c.get("ctx"), pathId(c), parseWith(sourceEventsQuery, c.req.query()))),
  );

  routes.post("/webhook-subscriptions", async (c) => c.json(await createSubscription(c.get("ctx"), await readBody(c, createSubscriptionRequest))));
  routes.get("/webhook-subscriptions", async (c) => c.json(await listSubscriptions(c.get("ctx"))));
  routes.get("/webhook-subscriptions/:id", async (c) => c.json(await getSubscription(c.get("ctx"), pathId(c))));
  routes.patch("/webhook-subscriptions/:id", async (c) =>
    c.json(await updateSubscription(c.get("ctx"), pathId(c), await readBody(c, updateSubscriptionRequest))),
  );
  routes.delete("/webhook-subscriptions/:id", async (c) => c.json(await deleteSubscription(c.get("ctx"), pathId(c))));
  routes.post("/webhook-subscriptions/:id/rotate-secret", async (c) => c.json(await rotateSubscriptionSecret(c.get("ctx"), pathId(c))));
  routes.post("/webhook-subscriptions/:id/test", async (c) => c.json(await sendTestEvent(c.get("ctx"), pathId(c))));

  const deliveriesQuery = z.object({
    status: z.enum(["PENDING", "SUCCEEDED", "FAILED"]).optional(),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    offset: z.coerce.number().int().min(0).default(0),
  });
  routes.get("/webhook-subscriptions/:id/deliveries", async (c) =>
    c.json(await listDeliveries(c.get("ctx"), pathId(c), parseWith(deliveriesQuery, c.req.query()))),
  );
  routes.get("/webhook-deliveries/:id", async (c) => c.json(await getDelivery(c.get("ctx"), pathId(c))));
  routes.post("/webhook-deliveries/:id/redeliver", async (c) => c.json(await redeliver(c.get("ctx"), pathId(c))));

  routes.get("/webhook-public-key", async (c) => c.json(await webhookPublicKey(c.env)));
  return routes;
}
