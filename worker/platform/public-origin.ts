import type { Ctx } from "./context";
import { ApiError } from "./errors";
import { config } from "./config";

/**
 * The shop's public origin, for every absolute link that leaves the request (emailed links, redirect sessions) and
 * every "is this our own site" check. A request's Host header is the sender's to choose, so PUBLIC_URL wins when set.
 */

/** The origin PUBLIC_URL names, or null when it is unset. */
export function configuredOrigin(env: Env): string | null {
  return config(env).publicOrigin;
}

/** The shop's public origin: PUBLIC_URL when configured, else the origin the request came to (local runs, tests). */
export function publicOrigin(ctx: Ctx): string {
  return configuredOrigin(ctx.env) ?? ctx.origin;
}

/**
 * The origin of links the shop emails (password reset, activation). In production it must come from PUBLIC_URL:
 * without it the shop refuses (503) before anything is written or sent, rather than mail a link built from a Host.
 */
export function emailLinkOrigin(ctx: Ctx): string {
  const configured = configuredOrigin(ctx.env);
  if (configured) return configured;
  if (config(ctx.env).production) {
    throw new ApiError(503, "PUBLIC_URL_NOT_CONFIGURED", "Links cannot be emailed before PUBLIC_URL (the shop's public origin) is configured", {
      message: "Public URL is not configured",
    });
  }
  return ctx.origin;
}
