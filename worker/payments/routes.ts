import { Hono } from "hono";
import type { AppEnv } from "#worker/platform/http";
import { receiveStripeWebhook } from "./webhook";

/**
 * Stripe's webhook endpoint, mounted at /webhooks before the generic incoming webhooks:
 *
 *   POST /webhooks/stripe  (Stripe-Signature)  → {id, status: RECORDED | DUPLICATE | IGNORED}
 */
export const stripeWebhookRoutes = new Hono<AppEnv>();

stripeWebhookRoutes.post("/stripe", async (c) => c.json(await receiveStripeWebhook(c.get("ctx"), c.req.raw)));
