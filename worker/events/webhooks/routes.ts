import { Hono } from "hono";
import type { AppEnv } from "../../platform/http";

// Placeholder while webhooks are being built in this change.
export const incomingWebhookRoutes = new Hono<AppEnv>();
export const webhookAdminRoutes = new Hono<AppEnv>();
