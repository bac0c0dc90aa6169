import { redirectDocument } from "react-router";
import {
  authorize,
  challengeOf,
  exchangeToken,
  retireRefreshToken,
  revokeRefreshToken,
  savePendingAuthRequest,
  validateAuthRequest,
} from "#worker/identity";
import { randomSecret } from "#worker/identity";
import type { Ctx } from "#worker/platform/context";
import { publicOrigin } from "#worker/platform/public-origin";
import { withSessionToken } from "./auth.server";
import { clearSession, commitMemberSession, readSessionCookie, storefrontClientId } from "./session.server";

/**
 * The storefront's own member login: after the login (or verify, register, reset) page gets a session token, it runs
 * the same OAuth round trip a headless client does — an auth request with a PKCE S256 challenge for the store's
 * client, the authorize step with the session token, and the authorization_code grant with the verifier — in-process
 * (no HTTP to self), keeping the visitor's id so their cart can follow them. The member tokens go into the session
 * cookie; the visitor's tokens lapse a minute later (see SUPERSEDED_SESSION_GRACE_SECONDS).
 */
export async function memberLogin(ctx: Ctx, request: Request, sessionToken: string, next = "/"): Promise<Response> {
  const clientId = storefrontClientId(ctx.env);
  const redirectUri = `${publicOrigin(ctx)}/`;
  const codeVerifier = randomSecret(48);
  const state = randomSecret(24);
  const authRequest = await validateAuthRequest(
    ctx,
    {
      clientId,
      redirectUri,
      codeChallenge: await challengeOf(codeVerifier),
      codeChallengeMethod: "S256",
      responseMode: "query",
      responseType: "code",
      scope: "offline_access",
      state,
      prompt: "none",
    },
    (name) => name,
  );
  const visitorId = ctx.auth.kind === "visitor" || ctx.auth.kind === "member" ? ctx.auth.visitorId : undefined;
  await savePendingAuthRequest(ctx, authRequest, visitorId, "state");
  const outcome = await authorize(ctx, authRequest, sessionToken, "/");
  const code = outcome.kind === "redirect" ? new URL(outcome.location, ctx.origin).searchParams.get("code") : null;
  if (!code) throw new Error(`storefront login: authorize gave no code (${JSON.stringify(outcome)})`);
  const tokens = await exchangeToken(ctx, { grantType: "authorization_code", clientId, redirectUri, code, codeVerifier }, undefined);

  const previous = readSessionCookie(request);
  if (previous?.refreshToken) ctx.waitUntil(retireRefreshToken(ctx, previous.refreshToken));
  return redirectDocument(next, { headers: { "Set-Cookie": commitMemberSession(tokens), "Cache-Control": "no-store" } });
}

/**
 * What a page does after login, register, verify or reset succeeded with a session token: continue an OAuth flow
 * that sent the shopper here (`returnTo` under /oauth2/, with the token appended), or sign the storefront session in
 * as the member and go back to the page the shopper came from (`returnTo`, e.g. /checkout or /account), else home.
 */
export async function continueAfterSignIn(ctx: Ctx, request: Request, sessionToken: string, returnTo: string | null): Promise<Response> {
  return returnTo?.startsWith("/oauth2/")
    ? redirectDocument(withSessionToken(returnTo, sessionToken), { headers: { "Cache-Control": "no-store" } })
    : memberLogin(ctx, request, sessionToken, returnTo ?? "/");
}

/** Logs the storefront session out: revokes its refresh token (and so its access tokens) and clears the cookie. */
export async function memberLogout(ctx: Ctx, request: Request, next = "/"): Promise<Response> {
  const previous = readSessionCookie(request);
  if (previous?.refreshToken) await revokeRefreshToken(ctx, previous.refreshToken);
  return redirectDocument(next, { headers: { "Set-Cookie": clearSession(), "Cache-Control": "no-store" } });
}
