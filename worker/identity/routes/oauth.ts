import { Hono } from "hono";
import { BodyTooLarge, readText } from "#worker/platform/body";
import { badField } from "#worker/platform/errors";
import { clientAddress } from "#worker/platform/rate-limit";
import type { AppContext, AppEnv } from "#worker/platform/http";
import { readJson } from "#worker/platform/validation";
import { authorize, exchangeToken, validateAuthRequest, type AuthRequestInput } from "../oauth";
import { returnToWithoutSession, sendAuthorizeOutcome } from "./session-end";

/** Largest form-encoded token request read (a standard OAuth client may post a form instead of JSON). */
const MAX_FORM_BYTES = 16_384;

async function tokenBody(c: AppContext): Promise<unknown> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type.trim())) return readJson(c);
  const text = await readText(c.req.raw, MAX_FORM_BYTES).catch((err) => {
    throw err instanceof BodyTooLarge ? badField("body", `must be at most ${MAX_FORM_BYTES} bytes`, "MAX_SIZE") : err;
  });
  if (text === null) throw badField("body", "is not UTF-8 text", "FORMAT");
  return Object.fromEntries(new URLSearchParams(text));
}

/** Query parameters of the authorize URL: OAuth's snake_case names, or the redirect session's camelCase ones. */
const AUTHORIZE_PARAMS: Record<keyof AuthRequestInput, [string, string]> = {
  clientId: ["client_id", "clientId"],
  redirectUri: ["redirect_uri", "redirectUri"],
  codeChallenge: ["code_challenge", "codeChallenge"],
  codeChallengeMethod: ["code_challenge_method", "codeChallengeMethod"],
  responseMode: ["response_mode", "responseMode"],
  responseType: ["response_type", "responseType"],
  scope: ["scope", "scope"],
  state: ["state", "state"],
  prompt: ["prompt", "prompt"],
  origin: ["origin", "origin"],
};

/** OAuth2: the token endpoint and the authorize endpoint (the auth redirect session's fullUrl). */
export const oauthRoutes = new Hono<AppEnv>()
  .post("/token", async (c) => {
    const tokens = await exchangeToken(c.get("ctx"), await tokenBody(c), c.req.header("authorization"), { ip: clientAddress(c.req.raw.headers) });
    // Tokens must not be cached by anything on the way (RFC 6749 section 5.1).
    c.header("cache-control", "no-store");
    return c.json(tokens);
  })
  .get("/authorize", async (c) => {
    const ctx = c.get("ctx");
    const input: AuthRequestInput = {};
    for (const [name, [snake, camel]] of Object.entries(AUTHORIZE_PARAMS))
      input[name as keyof AuthRequestInput] = c.req.query(snake) ?? c.req.query(camel);
    const request = await validateAuthRequest(ctx, input, (name) => AUTHORIZE_PARAMS[name][0]);
    const sessionToken = c.req.query("sessionToken") ?? c.req.query("session_token");
    return sendAuthorizeOutcome(
      c,
      await authorize(ctx, request, sessionToken, returnToWithoutSession(c.req.url, Object.values(AUTHORIZE_PARAMS).flat())),
    );
  });
