import { eq } from "drizzle-orm";
import { z } from "zod";
import { requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, forbidden, invalidArgument, unauthenticated, type FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { hitLimits, LIMITS } from "#worker/platform/rate-limit";
import { parseWith } from "#worker/platform/validation";
import { accessTokenOf, tokenAuth } from "./api-keys";
import {
  defaultClientId,
  getOAuthClient,
  isOriginAllowed,
  isRedirectAllowed,
  isWebOrigin,
  redirectUriProblem,
  registeredOrigins,
  requireOAuthClient,
  type OAuthClient,
} from "./clients";
import { consumeOneTime, discardOneTime, peekOneTime, prepareOneTime, putOneTime } from "./one-time";
import { identities } from "./tables";
import {
  expireRefreshHashSoon,
  issueAccessToken,
  issueTokens,
  readAccessToken,
  readRefreshToken,
  revokeRefreshHash,
  revokeSessionOf,
  type TokenResponse,
} from "./tokens";
import { runBatch } from "#worker/platform/unit-of-work";
import { visitorSignedIn } from "./sign-in";

/**
 * OAuth2 for the storefront, as the Wix SDK's OAuthStrategy uses it: the token grants, PKCE S256, the authorize
 * step that turns a member's session token into a one-time authorization code, and logout.
 *
 * A member gets tokens only through the round trip the Wix SDK makes: login → session token → redirect session
 * (auth) → authorize (code) → `authorization_code` grant with the PKCE verifier. Authorization codes are one-time D1
 * tokens; access and refresh tokens live hashed in KV (tokens.ts).
 */

/** Authorization codes are short-lived: the client exchanges them at once. */
export const AUTH_CODE_TTL_SECONDS = 5 * 60;
/** A pending auth request waits this long for the member to log in on the store's login page. */
export const AUTH_REQUEST_TTL_SECONDS = 60 * 60;

// ---------------------------------------------------------------------------------------------------------------
// PKCE (RFC 7636, S256 only)

/** An S256 challenge: base64url of a SHA-256 digest, no padding. */
const CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER_CHARS = /^[A-Za-z0-9._~-]+$/;

/** The Wix API's error text for a verifier of the wrong length, or null. */
export function verifierLengthError(verifier: string): string | null {
  const n = verifier.length;
  return n < 43 || n > 128 ? `Expected a length between 43 and 128. Received ${n}.` : null;
}

/** base64url(SHA-256(verifier)): the challenge a verifier answers. */
export async function challengeOf(verifier: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  let bin = "";
  for (const b of digest) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

// ---------------------------------------------------------------------------------------------------------------
// Auth requests (the `auth` redirect session and the authorize endpoint)

export type ResponseMode = "query" | "fragment" | "web_message";
export type Prompt = "login" | "none";

/** A validated authorization request. */
export interface AuthRequest {
  clientId: string;
  /** Absent only for web_message (the SDK's direct login in a hidden iframe). */
  redirectUri?: string;
  /** web_message only: the registered origin the answer is posted to, when the request named one. */
  origin?: string;
  codeChallenge: string;
  responseMode: ResponseMode;
  prompt: Prompt;
  scope: string;
  state: string;
}

/** An authorization request as sent, before validation (field names as the redirect-session body has them). */
export interface AuthRequestInput {
  clientId?: unknown;
  redirectUri?: unknown;
  codeChallenge?: unknown;
  codeChallengeMethod?: unknown;
  responseMode?: unknown;
  responseType?: unknown;
  scope?: unknown;
  state?: unknown;
  prompt?: unknown;
  /** web_message only: the origin of the page waiting for the answer. */
  origin?: unknown;
}

const RESPONSE_MODES: ResponseMode[] = ["query", "fragment", "web_message"];
/** consent and select_account are accepted and treated as login (there is no consent screen). */
const PROMPTS = ["login", "none", "consent", "select_account"];

const optionalText = (v: unknown): string | undefined =>
  v === undefined || v === null || v === "" ? undefined : typeof v === "string" ? v : String(v);

/**
 * Validates an authorization request: a known client, response type `code`, an S256 challenge of 43 base64url
 * characters, a state, a response mode, and a redirect URI the client allows (required unless web_message).
 * web_message is for silent sign-in only (prompt none), answered only to an origin registered for the client.
 * Every problem is reported at once as INVALID_ARGUMENT; `field` names a property as the caller sent it.
 */
export async function validateAuthRequest(ctx: Ctx, input: AuthRequestInput, field: (name: keyof AuthRequestInput) => string): Promise<AuthRequest> {
  const violations: FieldViolation[] = [];
  const bad = (name: keyof AuthRequestInput, description: string, violatedRule: FieldViolation["violatedRule"] = "VALIDATION") =>
    violations.push({ field: field(name), description, violatedRule, data: {} });

  const clientId = optionalText(input.clientId);
  let client: OAuthClient | null = null;
  if (!clientId) bad("clientId", "is required", "REQUIRED_FIELD");
  else if (!(client = await getOAuthClient(ctx, clientId))) bad("clientId", "is not a known OAuth client");

  const responseType = optionalText(input.responseType) ?? "code";
  if (responseType !== "code") bad("responseType", 'must be "code"', "INVALID_ENUM_VALUE");

  const codeChallenge = optionalText(input.codeChallenge);
  if (!codeChallenge) bad("codeChallenge", "is required", "REQUIRED_FIELD");
  else if (!CHALLENGE_PATTERN.test(codeChallenge)) bad("codeChallenge", "must be 43 base64url characters (an S256 challenge)", "FORMAT");

  const method = optionalText(input.codeChallengeMethod) ?? "S256";
  if (method !== "S256") bad("codeChallengeMethod", 'must be "S256"', "INVALID_ENUM_VALUE");

  const responseMode = (optionalText(input.responseMode) ?? "fragment") as ResponseMode;
  if (!RESPONSE_MODES.includes(responseMode)) bad("responseMode", "must be one of query, fragment, web_message", "INVALID_ENUM_VALUE");

  const promptText = optionalText(input.prompt) ?? "login";
  if (!PROMPTS.includes(promptText)) bad("prompt", "must be one of login, none", "INVALID_ENUM_VALUE");

  const state = optionalText(input.state);
  if (!state) bad("state", "is required", "REQUIRED_FIELD");
  else if (state.length > 512) bad("state", "must be at most 512 characters", "MAX_LENGTH");

  const scope = optionalText(input.scope) ?? "offline_access";
  if (scope.length > 200) bad("scope", "must be at most 200 characters", "MAX_LENGTH");

  const redirectUri = optionalText(input.redirectUri);
  if (!redirectUri) {
    if (responseMode !== "web_message") bad("redirectUri", `is required for responseMode ${responseMode}`, "REQUIRED_FIELD");
  } else {
    const problem = redirectUriProblem(redirectUri);
    if (problem) bad("redirectUri", problem, "FORMAT");
    else if (client && !isRedirectAllowed(ctx, client, redirectUri)) bad("redirectUri", "is not an allowed redirect URI for this client");
  }

  let origin: string | undefined;
  if (responseMode === "web_message") {
    // A page that posts a code to another window must never follow an interactive login: a page that opened it
    // could otherwise read the code of whoever signs in.
    if (PROMPTS.includes(promptText) && promptText !== "none") bad("prompt", "must be none for responseMode web_message");
    origin = optionalText(input.origin);
    if (origin === undefined && redirectUri && !redirectUriProblem(redirectUri) && isWebOrigin(new URL(redirectUri).origin))
      origin = new URL(redirectUri).origin;
    if (origin !== undefined && !isWebOrigin(origin)) bad("origin", "must be a web origin such as https://shop.example", "FORMAT");
    else if (origin !== undefined && client && !isOriginAllowed(ctx, client, origin)) bad("origin", "is not an origin registered for this client");
  }

  if (violations.length) throw invalidArgument(violations);
  const prompt: Prompt = promptText === "none" ? "none" : "login";
  return { clientId: clientId!, redirectUri, ...(origin && { origin }), codeChallenge: codeChallenge!, responseMode, prompt, scope, state: state! };
}

/** What a pending auth request keeps (one_time_tokens, kind auth_request, keyed by its state). */
interface PendingAuthRequest extends AuthRequest {
  /** The visitor who asked (from the redirect-session caller's token): member tokens keep it for the cart. */
  visitorId?: string;
}

/**
 * Records an auth request so the login page's /v1/callback can continue it by state, and so the member tokens keep
 * the asking visitor's id. A state already pending for another client or redirect URI is refused.
 */
export async function savePendingAuthRequest(ctx: Ctx, request: AuthRequest, visitorId: string | undefined, stateField: string): Promise<void> {
  const existing = await peekOneTime(ctx.db, "auth_request", request.state);
  if (existing) {
    const old = existing.data as unknown as PendingAuthRequest;
    if (old.clientId !== request.clientId || (old.redirectUri ?? null) !== (request.redirectUri ?? null)) {
      throw invalidArgument([
        { field: stateField, description: "is already in use by another pending authorization request", violatedRule: "VALIDATION", data: {} },
      ]);
    }
  }
  const pending: PendingAuthRequest = { ...request, ...(visitorId && { visitorId }) };
  await putOneTime(ctx.db, "auth_request", request.state, AUTH_REQUEST_TTL_SECONDS, null, pending as unknown as Record<string, unknown>);
}

/** The pending request recorded under this state, if it is the same request (same client, redirect and challenge). */
async function pendingFor(ctx: Ctx, request: AuthRequest): Promise<PendingAuthRequest | null> {
  const row = await peekOneTime(ctx.db, "auth_request", request.state);
  if (!row) return null;
  const pending = row.data as unknown as PendingAuthRequest;
  const same =
    pending.clientId === request.clientId &&
    (pending.redirectUri ?? null) === (request.redirectUri ?? null) &&
    pending.codeChallenge === request.codeChallenge;
  return same ? pending : null;
}

/**
 * The answer to an authorization request: a browser redirect, or a page that posts a message to the window that
 * framed or opened it, addressed to each of `targetOrigins` (exact origins, never "*").
 */
export type AuthorizeOutcome =
  | { kind: "redirect"; location: string }
  | { kind: "web_message"; message: Record<string, string>; targetOrigins: string[] };

/**
 * Where a web_message answer may go: the origin the request named, if it is (still) registered for the client, else
 * every origin registered for it (the browser hands the message only to the one that matches the waiting page).
 * Anything else is refused before a code is issued.
 */
async function webMessageTargets(ctx: Ctx, request: AuthRequest): Promise<string[]> {
  const refuse = (field: string, description: string) => invalidArgument([{ field, description, violatedRule: "VALIDATION", data: {} }]);
  if (request.prompt !== "none") throw refuse("prompt", "must be none for responseMode web_message");
  const client = await getOAuthClient(ctx, request.clientId);
  if (!client) throw refuse("client_id", "is not a known OAuth client");
  if (request.origin === undefined) return registeredOrigins(ctx, client);
  if (!isOriginAllowed(ctx, client, request.origin)) throw refuse("origin", "is not an origin registered for this client");
  return [request.origin];
}

/** Sends the authorization response (code or error) back to the client the way its response mode says. */
function respond(request: AuthRequest, params: Record<string, string>, targetOrigins: string[] | null): AuthorizeOutcome {
  const all = { ...params, state: request.state };
  if (request.responseMode === "web_message") {
    if (!targetOrigins?.length) throw new Error("a web_message answer needs its target origins");
    return { kind: "web_message", message: all, targetOrigins };
  }
  const url = new URL(request.redirectUri!);
  if (request.responseMode === "query") {
    for (const [k, v] of Object.entries(all)) url.searchParams.set(k, v);
    return { kind: "redirect", location: url.toString() };
  }
  return { kind: "redirect", location: `${url.toString()}#${new URLSearchParams(all).toString()}` };
}

/** An identity that may hold member tokens (ACTIVE), or null. */
async function activeIdentity(ctx: Ctx, identityId: string | null | undefined) {
  if (!identityId) return null;
  const [row] = await ctx.db
    .select({ id: identities.id, status: identities.status, role: identities.role, generation: identities.sessionGeneration })
    .from(identities)
    .where(eq(identities.id, identityId))
    .limit(1);
  return row?.status === "ACTIVE" ? row : null;
}

/**
 * The authorize step. With a valid session token (from login or register), issues a one-time authorization code
 * bound to the client, redirect URI and PKCE challenge, and answers per response mode. Without one: prompt=none
 * answers `error=login_required`; otherwise the browser goes to the store's login page, which comes back here
 * (`returnTo`) with a session token appended.
 *
 * `returnTo` is this request's own path and query, without any stale session token.
 */
export async function authorize(ctx: Ctx, request: AuthRequest, sessionToken: string | undefined, returnTo: string): Promise<AuthorizeOutcome> {
  // Checked before the session token is spent: a web_message request that may not be answered issues nothing.
  const targets = request.responseMode === "web_message" ? await webMessageTargets(ctx, request) : null;
  const session = sessionToken ? await consumeOneTime(ctx.db, "session", sessionToken) : null;
  const identity = session ? await activeIdentity(ctx, session.identityId) : null;
  if (!identity) {
    if (request.prompt === "none") {
      return respond(
        request,
        { error: "login_required", error_description: "The member is not logged in: log in first, then pass the session token" },
        targets,
      );
    }
    return { kind: "redirect", location: `/login?returnTo=${encodeURIComponent(returnTo)}` };
  }
  const pending = await pendingFor(ctx, request);
  const code = await prepareOneTime(ctx.db, "auth_code", AUTH_CODE_TTL_SECONDS, identity.id, {
    clientId: request.clientId,
    redirectUri: request.redirectUri ?? null,
    codeChallenge: request.codeChallenge,
    visitorId: pending?.visitorId ?? null,
  });
  // The pending request is done with: /v1/callback cannot replay it.
  if (pending) await runBatch(ctx.db, [code.statement, (await discardOneTime(ctx.db, "auth_request", request.state)).statement]);
  else await code.statement;
  return respond(request, { code: code.token }, targets);
}

/**
 * /v1/callback: continues the pending auth request with this state after the member logged in on the store's page
 * Errors use the Wix API's texts: 'Missing code or _state', 'Invalid _state'.
 */
export async function continueAuthorization(
  ctx: Ctx,
  state: string | undefined,
  sessionToken: string | undefined,
  returnTo: string,
): Promise<AuthorizeOutcome> {
  if (!state || !sessionToken) {
    throw new ApiError(400, "INVALID_REQUEST", "Missing code or _state", { data: { state: state ?? null } });
  }
  const row = state.length <= 512 ? await peekOneTime(ctx.db, "auth_request", state) : null;
  if (!row) throw new ApiError(400, "INVALID_STATE", "Invalid _state", { data: { state } });
  const { visitorId: _v, ...request } = row.data as unknown as PendingAuthRequest;
  return authorize(ctx, request, sessionToken, returnTo);
}

// ---------------------------------------------------------------------------------------------------------------
// The token endpoint

const text = (max: number) => z.string().max(max).optional();

/** The /oauth2/token body after merging camelCase and snake_case names. */
const tokenRequest = z.object({
  grantType: text(100),
  clientId: text(200),
  refreshToken: text(512),
  redirectUri: text(2048),
  code: text(512),
  codeVerifier: z.string().optional(),
  memberId: text(200),
  sessionToken: text(512),
  scope: text(200),
});

type TokenRequest = z.output<typeof tokenRequest>;

const ALIASES: Record<keyof TokenRequest, string> = {
  grantType: "grant_type",
  clientId: "client_id",
  refreshToken: "refresh_token",
  redirectUri: "redirect_uri",
  code: "code",
  codeVerifier: "code_verifier",
  memberId: "member_id",
  sessionToken: "session_token",
  scope: "scope",
};

/** Reads the body in either naming (the SDK sends camelCase for most grants, snake_case for authorized_client). */
function normaliseTokenBody(body: unknown): TokenRequest {
  if (body === null || typeof body !== "object" || Array.isArray(body))
    throw invalidArgument([{ field: "body", description: "must be a JSON object", violatedRule: "VALIDATION", data: {} }]);
  const raw = body as Record<string, unknown>;
  const merged: Record<string, unknown> = {};
  for (const [camel, snake] of Object.entries(ALIASES)) {
    const value = raw[camel] ?? raw[snake];
    if (value !== undefined && value !== null && value !== "") merged[camel] = value;
  }
  return parseWith(tokenRequest, merged);
}

function required(req: TokenRequest, names: (keyof TokenRequest)[]): void {
  const missing = names.filter((n) => !req[n]);
  if (missing.length)
    throw invalidArgument(missing.map((n) => ({ field: n, description: "is required", violatedRule: "REQUIRED_FIELD" as const, data: {} })));
}

const invalidGrant = (description: string, data: Record<string, unknown> = {}) =>
  new ApiError(400, "INVALID_GRANT", description, { data, message: "Invalid grant" });

/**
 * POST /oauth2/token. Grants: `anonymous` (new visitor tokens), `refresh_token` (a new access token; the refresh
 * token stays valid, the SDK never rotates it), `authorization_code` (member tokens, PKCE S256) and
 * `authorized_client` (member tokens for a member id, for an API key or staff holding members.impersonate).
 */
export async function exchangeToken(
  ctx: Ctx,
  body: unknown,
  authorization: string | undefined,
  client: { ip?: string } = {},
): Promise<TokenResponse> {
  const req = normaliseTokenBody(body);
  if (!req.grantType) throw invalidArgument([{ field: "grantType", description: "is required", violatedRule: "REQUIRED_FIELD", data: {} }]);
  switch (req.grantType) {
    case "anonymous":
      return anonymousGrant(ctx, req, client.ip);
    case "refresh_token":
      return refreshGrant(ctx, req);
    case "authorization_code":
      return authorizationCodeGrant(ctx, req);
    case "authorized_client":
      return authorizedClientGrant(ctx, req, authorization);
    default:
      throw new ApiError(
        400,
        "UNSUPPORTED_GRANT_TYPE",
        `Grant type "${req.grantType}" is not supported: use anonymous, refresh_token, authorization_code or authorized_client`,
        {
          data: { grantType: req.grantType },
          message: "Unsupported grant type",
        },
      );
  }
}

async function anonymousGrant(ctx: Ctx, req: TokenRequest, ip: string | undefined): Promise<TokenResponse> {
  required(req, ["clientId"]);
  const client = await requireOAuthClient(ctx, req.clientId);
  // Each grant writes two KV entries: without a ceiling per address a script could mint them without end.
  if (ip) await hitLimits(ctx.db, [LIMITS.anonymousTokens(client.id, ip, client.visitorTokenBudget)]);
  return issueTokens(ctx.env, { role: "visitor", clientId: client.id, visitorId: newId() });
}

async function refreshGrant(ctx: Ctx, req: TokenRequest): Promise<TokenResponse> {
  required(req, ["clientId", "refreshToken"]);
  const client = await requireOAuthClient(ctx, req.clientId);
  const record = await readRefreshToken(ctx.env, req.refreshToken!);
  if (!record) throw invalidGrant("The refresh token is unknown, expired or revoked");
  if (record.clientId !== client.id) throw invalidGrant("The refresh token was issued to another client");
  // The same rule as for access tokens (api-keys.ts): a blocked or deleted member's session is over, and so is one
  // begun before the member's sessions were ended (password change or reset, sign out everywhere).
  if (record.role === "member" && !(await tokenAuth(ctx.db, record)))
    throw invalidGrant("The member of this refresh token is blocked or deleted, or their sessions were ended");
  const { hash, expiresAt: _e, ...subject } = record;
  const access = await issueAccessToken(ctx.env, { ...subject, refreshHash: hash });
  return { access_token: access.token, refresh_token: req.refreshToken!, expires_in: access.expiresIn, token_type: "Bearer" };
}

async function authorizationCodeGrant(ctx: Ctx, req: TokenRequest): Promise<TokenResponse> {
  required(req, ["clientId", "code", "codeVerifier"]);
  const verifier = req.codeVerifier!;
  const lengthError = verifierLengthError(verifier);
  if (lengthError)
    throw invalidArgument([
      { field: "codeVerifier", description: lengthError, violatedRule: verifier.length < 43 ? "MIN_LENGTH" : "MAX_LENGTH", data: {} },
    ]);
  if (!VERIFIER_CHARS.test(verifier)) {
    throw invalidArgument([
      { field: "codeVerifier", description: "must use only the characters A-Z a-z 0-9 - . _ ~", violatedRule: "FORMAT", data: {} },
    ]);
  }
  const client = await requireOAuthClient(ctx, req.clientId);
  // Used once, whatever happens next: a failed verifier burns the code (no guessing).
  const row = await consumeOneTime(ctx.db, "auth_code", req.code!);
  if (!row) throw invalidGrant("The authorization code is unknown, expired or already used");
  const bound = row.data as { clientId: string; redirectUri: string | null; codeChallenge: string; visitorId: string | null };
  if (bound.clientId !== client.id) throw invalidGrant("The authorization code was issued to another client");
  if ((bound.redirectUri ?? null) !== (req.redirectUri ?? null)) throw invalidGrant("redirectUri does not match the authorization request");
  if (!sameText(await challengeOf(verifier), bound.codeChallenge))
    throw invalidGrant("The code verifier does not match the code challenge (PKCE S256)");
  const identity = await activeIdentity(ctx, row.identityId);
  if (!identity) throw invalidGrant("The member is not active");
  if (bound.visitorId) await visitorSignedIn(ctx, bound.visitorId, identity.id);
  return issueTokens(ctx.env, {
    role: "member",
    clientId: client.id,
    visitorId: bound.visitorId ?? newId(),
    identityId: identity.id,
    generation: identity.generation,
  });
}

async function authorizedClientGrant(ctx: Ctx, req: TokenRequest, authorization: string | undefined): Promise<TokenResponse> {
  const auth = ctx.auth;
  if (auth.kind === "anonymous") throw unauthenticated("The authorized_client grant needs the store's API key in the Authorization header");
  requirePermission(ctx, "members.impersonate");
  required(req, ["memberId"]);
  if (req.scope && !req.scope.split(/\s+/).includes("offline_access")) {
    throw new ApiError(400, "INVALID_SCOPE", `Scope "${req.scope}" is not supported: use offline_access`, {
      data: { scope: req.scope },
      message: "Invalid scope",
    });
  }
  const clientId = req.clientId ?? defaultClientId(ctx.env);
  const client = await requireOAuthClient(ctx, clientId);
  const identity = await activeIdentity(ctx, req.memberId);
  if (!identity) throw invalidGrant(`Member ${req.memberId} does not exist or is not active`, { memberId: req.memberId });
  // A staff key must not mint the owner's or another staff member's session.
  if (identity.role !== "MEMBER" && !(auth.kind === "apiKey" && auth.role === "OWNER"))
    throw forbidden("Only the owner's API key can log in as the owner or staff");
  if (req.sessionToken) {
    const session = await consumeOneTime(ctx.db, "session", req.sessionToken);
    if (!session || session.identityId !== identity.id)
      throw invalidGrant("The session token is unknown, expired, used or belongs to another member");
  }
  // The SDK sends "<visitor access token>,<apiKey>": keep that visitor's id so the cart can follow the member.
  const visitorToken = auth.kind === "apiKey" ? accessTokenOf(authorization) : null;
  const visitor = visitorToken ? await readAccessToken(ctx.env, visitorToken) : null;
  if (visitor) await visitorSignedIn(ctx, visitor.visitorId, identity.id);
  // Without a login's session token this is the API key acting as the member: not a login that may change the password.
  const login = req.sessionToken ? {} : { authTime: undefined };
  return issueTokens(ctx.env, {
    role: "member",
    clientId: client.id,
    visitorId: visitor?.visitorId ?? newId(),
    identityId: identity.id,
    generation: identity.generation,
    ...login,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// Logout

/** Ends the caller's session (the access token in Authorization): its refresh token and access token. */
export async function logoutCaller(ctx: Ctx, authorization: string | undefined): Promise<boolean> {
  const token = accessTokenOf(authorization);
  return token ? revokeSessionOf(ctx.env, token) : false;
}

/** Ends the session of a refresh token (the storefront cookie's) a minute from now: the one a login replaced. */
export async function retireRefreshToken(ctx: Ctx, refreshToken: string): Promise<void> {
  const record = await readRefreshToken(ctx.env, refreshToken);
  if (record) await expireRefreshHashSoon(ctx.env, record.hash);
}

/** Ends the session of a refresh token (the storefront cookie's), if it is live. */
export async function revokeRefreshToken(ctx: Ctx, refreshToken: string): Promise<void> {
  const record = await readRefreshToken(ctx.env, refreshToken);
  if (record) await revokeRefreshHash(ctx.env, record.hash);
}

/** Where a logout may send the browser: the URI if the client allows it, else the store's home page. */
export async function postLogoutTarget(ctx: Ctx, clientId: string | undefined | null, uri: string | undefined | null): Promise<string> {
  if (!uri) return "/";
  const client = await getOAuthClient(ctx, clientId ?? defaultClientId(ctx.env));
  return client && isRedirectAllowed(ctx, client, uri) ? uri : "/";
}

/** What a logout redirect session keeps (one_time_tokens, kind logout): whose session to end and where to go. */
export interface LogoutSession {
  clientId: string;
  postFlowUrl: string | null;
  refreshHash: string | null;
}

/** Records a logout redirect session for the caller's token; visiting its URL ends that session. Returns its key. */
export async function createLogoutSession(
  ctx: Ctx,
  clientId: string,
  postFlowUrl: string | null,
  authorization: string | undefined,
): Promise<string> {
  const token = accessTokenOf(authorization);
  const record = token ? await readAccessToken(ctx.env, token) : null;
  const data: LogoutSession = { clientId, postFlowUrl, refreshHash: record?.refreshHash ?? null };
  const { token: key, statement } = await prepareOneTime(
    ctx.db,
    "logout",
    AUTH_REQUEST_TTL_SECONDS,
    record?.identityId ?? null,
    data as unknown as Record<string, unknown>,
  );
  await statement;
  return key;
}

/** Uses a logout redirect session: ends the session it was made for, once. Returns it, or null if unknown or used. */
export async function endLogoutSession(ctx: Ctx, key: string): Promise<LogoutSession | null> {
  const row = await consumeOneTime(ctx.db, "logout", key);
  if (!row) return null;
  const session = row.data as unknown as LogoutSession;
  if (session.refreshHash) await revokeRefreshHash(ctx.env, session.refreshHash);
  return session;
}
