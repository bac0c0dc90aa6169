import { eq } from "drizzle-orm";
import type { Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { defaultClientId } from "./clients";
import { consumeOneTime, prepareOneTime, randomSecret } from "./one-time";
import { identities } from "./tables";
import { issueTokens, type TokenResponse } from "./tokens";

/**
 * Cross-origin hand-over: a headless site's redirect session (checkout or login) sends the browser to this shop's
 * origin, where it has no session. The session's URL carries a credential that starts the shop session as the
 * visitor or member who created it: single use (a D1 one-time token, deleted as it is read), short-lived, and bound
 * to the checkout it was made for. The post-flow URL (already checked against the client) travels with it.
 */

/** How long a hand-over credential stays usable: enough for a browser redirect, not for a link shared later. */
export const HANDOVER_TTL_SECONDS = 5 * 60;

/** How long the shop remembers where a handed-over checkout returns to (its confirmation page links there). */
const POST_FLOW_TTL_SECONDS = 7 * 24 * 60 * 60;

/** The URL query parameter that carries the credential. */
export const HANDOVER_PARAM = "handover";

interface HandoverData {
  intent: "checkout" | "login";
  visitorId: string;
  checkoutId: string | null;
  postFlowUrl: string | null;
}

/** What a redeemed credential gives the arriving browser: the shop session's tokens and where the flow ends. */
export interface Handover {
  tokens: TokenResponse;
  checkoutId: string | null;
  postFlowUrl: string | null;
  /** For a login: the key under which the post-flow URL waits for the login to finish (postFlowUrlOf), or null. */
  continueKey: string | null;
}

/**
 * A credential for the caller (a visitor or member token), or null when the caller is neither (an API key or no
 * token): such a redirect session carries no identity and the shop starts its own.
 */
export async function createHandover(
  ctx: Ctx,
  intent: HandoverData["intent"],
  bound: { checkoutId?: string; postFlowUrl?: string },
): Promise<string | null> {
  const a = ctx.auth;
  if (a.kind !== "visitor" && a.kind !== "member") return null;
  const data: HandoverData = { intent, visitorId: a.visitorId, checkoutId: bound.checkoutId ?? null, postFlowUrl: bound.postFlowUrl ?? null };
  const { token, statement } = await prepareOneTime(
    ctx.db,
    "handover",
    HANDOVER_TTL_SECONDS,
    a.kind === "member" ? a.identityId : null,
    data as unknown as Record<string, unknown>,
  );
  await statement;
  return token;
}

/**
 * Uses a credential (once, whatever happens next): new storefront tokens for its visitor or member, or null when
 * it is unknown, used, expired, made for another intent or checkout, or its member is no longer active.
 */
export async function redeemHandover(
  env: Env,
  db: Db,
  token: string,
  expected: { intent: HandoverData["intent"]; checkoutId?: string | null },
): Promise<Handover | null> {
  const row = await consumeOneTime(db, "handover", token);
  if (!row) return null;
  const data = row.data as unknown as HandoverData;
  if (data.intent !== expected.intent) return null;
  if (expected.intent === "checkout" && (!data.checkoutId || data.checkoutId !== expected.checkoutId)) return null;
  const clientId = defaultClientId(env);
  let tokens: TokenResponse;
  if (row.identityId) {
    const [member] = await db
      .select({ status: identities.status, generation: identities.sessionGeneration })
      .from(identities)
      .where(eq(identities.id, row.identityId))
      .limit(1);
    if (member?.status !== "ACTIVE") return null;
    // A login elsewhere, not here: the session may shop, not change the password without signing in again.
    tokens = await issueTokens(env, {
      role: "member",
      clientId,
      visitorId: data.visitorId,
      identityId: row.identityId,
      generation: member.generation,
      authTime: undefined,
    });
  } else {
    tokens = await issueTokens(env, { role: "visitor", clientId, visitorId: data.visitorId });
  }
  // A checkout's confirmation finds its way back by the checkout id; a login's by a fresh key the page carries.
  const continueKey = data.postFlowUrl ? (data.checkoutId ?? `login:${randomSecret(24)}`) : null;
  if (continueKey && data.postFlowUrl) await env.SESSIONS.put(postFlowKey(continueKey), data.postFlowUrl, { expirationTtl: POST_FLOW_TTL_SECONDS });
  return { tokens, checkoutId: data.checkoutId, postFlowUrl: data.postFlowUrl, continueKey: data.checkoutId ? null : continueKey };
}

const postFlowKey = (key: string) => `postflow:${key}`;

/**
 * Where a handed-over flow goes back to when it is done (the headless site's URL, checked against its client when
 * the redirect session was made): by checkout id for an order's confirmation, by continueKey for a login; or null.
 */
export async function postFlowUrlOf(env: Env, key: string): Promise<string | null> {
  if (!key || key.length > 200) return null;
  return env.SESSIONS.get(postFlowKey(key));
}
