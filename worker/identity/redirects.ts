import { z } from "zod";
import type { Ctx } from "#worker/platform/context";
import { invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { parseWith } from "#worker/platform/validation";
import { publicOrigin } from "#worker/platform/public-origin";
import { defaultClientId, getOAuthClient, isRedirectAllowed, isWebOrigin, redirectUriProblem, type OAuthClient } from "./clients";
import { createHandover, HANDOVER_PARAM } from "./handover";
import { createLogoutSession, savePendingAuthRequest, validateAuthRequest, type AuthRequestInput } from "./oauth";

/**
 * Redirect sessions (POST /v1/redirect-session): a URL on this store's own
 * origin that a headless site sends the browser to for something the store does itself: authorize (member login
 * with PKCE), logout, checkout, login, a product page, the member's account. Each intent answers
 * `{redirectSession: {id, fullUrl, urlDetails: {endpoint, searchParams}, sessionToken?, shortCompleteUrl}}`.
 */

const url = z.string().max(2048).nullish();
const id = z.string().max(200).optional();

const callbacksSchema = z.object({
  postFlowUrl: url,
  thankYouPageUrl: url,
  loginUrl: url,
  bookingsServiceListUrl: url,
  cartPageUrl: url,
  planListUrl: url,
});

const authRequestSchema = z.object({
  clientId: z.unknown().optional(),
  redirectUri: z.unknown().optional(),
  codeChallenge: z.unknown().optional(),
  codeChallengeMethod: z.unknown().optional(),
  responseMode: z.unknown().optional(),
  responseType: z.unknown().optional(),
  scope: z.unknown().optional(),
  state: z.unknown().optional(),
  prompt: z.unknown().optional(),
  sessionToken: z.string().max(512).nullish(),
});

/** The member account sections a redirect can open. */
const ACCOUNT_SECTIONS = ["ACCOUNT_INFO", "BOOKINGS", "ORDERS", "SUBSCRIPTIONS", "EVENTS"] as const;

const redirectSessionRequest = z.object({
  auth: z.object({ authRequest: authRequestSchema.optional(), prompt: z.string().max(50).nullish() }).optional(),
  logout: z.object({ clientId: z.string().max(200).optional() }).optional(),
  login: z.object({}).optional(),
  ecomCheckout: z.object({ checkoutId: id }).optional(),
  eventsCheckout: z.object({ reservationId: id, eventSlug: z.string().max(200).optional() }).optional(),
  paidPlansCheckout: z.object({ planId: id, checkoutData: z.string().max(4000).nullish() }).optional(),
  bookingsCheckout: z.object({ timezone: z.string().max(40).optional(), slotAvailability: z.unknown().optional() }).optional(),
  bookingsBook: z.object({ resourceId: id }).optional(),
  storesProduct: z.object({ productSlug: z.string().max(150).optional() }).optional(),
  ecomOrderPaymentRequest: z.object({ paymentRequestId: id }).optional(),
  membersAccount: z.object({ section: z.enum(ACCOUNT_SECTIONS).optional() }).optional(),
  callbacks: callbacksSchema.optional(),
  preferences: z
    .object({
      useGenericWixPages: z.boolean().nullish(),
      maintainIdentity: z.boolean().nullish(),
      additionalQueryParameters: z.record(z.string().max(100), z.string().max(500)).optional(),
      checkIfPublish: z.boolean().nullish(),
    })
    .optional(),
  origin: z.string().max(2048).nullish(),
});

type RedirectSessionRequest = z.output<typeof redirectSessionRequest>;

const INTENTS = [
  "auth",
  "logout",
  "login",
  "ecomCheckout",
  "eventsCheckout",
  "paidPlansCheckout",
  "bookingsCheckout",
  "bookingsBook",
  "storesProduct",
  "ecomOrderPaymentRequest",
  "membersAccount",
] as const;

type Intent = (typeof INTENTS)[number];

export interface RedirectSession {
  id: string;
  fullUrl: string;
  urlDetails: { endpoint: string; searchParams: Record<string, string> };
  sessionToken?: string;
  shortCompleteUrl: string;
}

function violation(field: string, description: string, violatedRule: FieldViolation["violatedRule"] = "VALIDATION"): FieldViolation {
  return { field, description, violatedRule, data: {} };
}

/** The one intent of the request (exactly one of auth, logout, login, ecomCheckout, …). */
function intentOf(req: RedirectSessionRequest): Intent {
  const present = INTENTS.filter((name) => req[name] !== undefined);
  if (present.length === 0) throw invalidArgument([violation("intent", `exactly one of ${INTENTS.join(", ")} is required`, "REQUIRED_FIELD")]);
  if (present.length > 1)
    throw invalidArgument(present.slice(1).map((name) => violation(name, `is not allowed together with ${present[0]}`, "FIELD_NOT_ALLOWED")));
  return present[0];
}

/** The client whose redirect URIs govern the callbacks: the caller's (from its token), else the store's default. */
async function callerClient(ctx: Ctx): Promise<OAuthClient | null> {
  const auth = ctx.auth;
  const clientId = auth.kind === "visitor" || auth.kind === "member" ? auth.clientId : defaultClientId(ctx.env);
  return getOAuthClient(ctx, clientId);
}

/** The callback URLs, checked against the client (a store page, or one the client lists). */
function checkCallbacks(ctx: Ctx, client: OAuthClient | null, callbacks: RedirectSessionRequest["callbacks"]): Record<string, string> {
  const out: Record<string, string> = {};
  const violations: FieldViolation[] = [];
  for (const [name, value] of Object.entries(callbacks ?? {})) {
    if (!value) continue;
    const problem = redirectUriProblem(value);
    if (problem) violations.push(violation(`callbacks.${name}`, problem, "FORMAT"));
    else if (client ? !isRedirectAllowed(ctx, client, value) : new URL(value).origin !== publicOrigin(ctx)) {
      violations.push(violation(`callbacks.${name}`, "is not an allowed redirect URI for this client"));
    } else out[name] = value;
  }
  if (violations.length) throw invalidArgument(violations);
  return out;
}

function session(
  ctx: Ctx,
  path: string,
  params: Record<string, string | null | undefined>,
  extra: Record<string, string> = {},
  sessionToken?: string,
): RedirectSession {
  const endpoint = `${publicOrigin(ctx)}${path}`;
  const searchParams: Record<string, string> = {};
  for (const [k, v] of Object.entries({ ...params, ...extra })) if (v !== undefined && v !== null && v !== "") searchParams[k] = v;
  const query = new URLSearchParams(searchParams).toString();
  const fullUrl = query ? `${endpoint}?${query}` : endpoint;
  return { id: newId(), fullUrl, urlDetails: { endpoint, searchParams }, ...(sessionToken && { sessionToken }), shortCompleteUrl: fullUrl };
}

function requireField(value: string | undefined, field: string): string {
  if (!value) throw invalidArgument([violation(field, "is required", "REQUIRED_FIELD")]);
  return value;
}

/**
 * The login page. It takes a same-origin returnTo; an external postFlowUrl is where it goes when the login is done.
 * The visitor's session comes along (a hand-over credential), so their cart follows them into the member's account.
 */
async function loginSession(ctx: Ctx, callbacks: Record<string, string>, extra: Record<string, string>): Promise<RedirectSession> {
  const post = callbacks.postFlowUrl ? new URL(callbacks.postFlowUrl) : null;
  const local = post && post.origin === publicOrigin(ctx);
  const external = local ? undefined : callbacks.postFlowUrl;
  const handover = await createHandover(ctx, "login", { postFlowUrl: external });
  const params = { returnTo: local ? post.pathname + post.search : undefined, postFlowUrl: external, [HANDOVER_PARAM]: handover };
  return session(ctx, "/login", params, extra);
}

/** The authorize step's redirect session: the OAuth request is checked and kept for the page that finishes it. */
async function authSession(ctx: Ctx, req: RedirectSessionRequest, requestOrigin: string | undefined): Promise<RedirectSession> {
  const authRequest = req.auth!.authRequest;
  if (!authRequest) throw invalidArgument([violation("auth.authRequest", "is required", "REQUIRED_FIELD")]);
  const pageOrigin = req.origin ?? (requestOrigin && isWebOrigin(requestOrigin) ? requestOrigin : undefined);
  const input: AuthRequestInput = { ...authRequest, prompt: req.auth!.prompt ?? authRequest.prompt, origin: pageOrigin };
  const request = await validateAuthRequest(ctx, input, (name) =>
    name === "prompt" ? "auth.prompt" : name === "origin" ? "origin" : `auth.authRequest.${name}`,
  );
  const visitorId = ctx.auth.kind === "visitor" || ctx.auth.kind === "member" ? ctx.auth.visitorId : undefined;
  await savePendingAuthRequest(ctx, request, visitorId, "auth.authRequest.state");
  const sessionToken = authRequest.sessionToken ?? undefined;
  return session(ctx, "/oauth2/authorize", {
    client_id: request.clientId,
    redirect_uri: request.redirectUri,
    response_type: "code",
    response_mode: request.responseMode,
    scope: request.scope,
    state: request.state,
    code_challenge: request.codeChallenge,
    code_challenge_method: "S256",
    prompt: request.prompt,
    origin: request.origin,
    sessionToken,
  });
}

/** The logout redirect session, back to the client's allowed post-flow URL. */
async function logoutSession(ctx: Ctx, req: RedirectSessionRequest, authorization: string | undefined): Promise<RedirectSession> {
  const clientId = requireField(req.logout!.clientId, "logout.clientId");
  const client = await getOAuthClient(ctx, clientId);
  if (!client) throw invalidArgument([violation("logout.clientId", "is not a known OAuth client")]);
  const { postFlowUrl } = checkCallbacks(ctx, client, { postFlowUrl: req.callbacks?.postFlowUrl });
  const key = await createLogoutSession(ctx, clientId, postFlowUrl ?? null, authorization);
  return session(ctx, "/v1/logout", { clientId, postLogoutRedirectUri: postFlowUrl, logoutSession: key });
}

/**
 * Creates a redirect session for one intent; `authorization` is the caller's header (its token ties the session to
 * them), `requestOrigin` its Origin header (a browser's page: where a web_message answer goes unless `origin` says).
 */
export async function createRedirectSession(
  ctx: Ctx,
  body: unknown,
  authorization: string | undefined,
  requestOrigin?: string,
): Promise<{ redirectSession: RedirectSession }> {
  const req = parseWith(redirectSessionRequest, body);
  const intent = intentOf(req);
  const extra = req.preferences?.additionalQueryParameters ?? {};
  if (Object.keys(extra).length > 20)
    throw invalidArgument([violation("preferences.additionalQueryParameters", "must have at most 20 entries", "MAX_SIZE")]);

  switch (intent) {
    case "auth":
      return { redirectSession: await authSession(ctx, req, requestOrigin) };
    case "logout":
      return { redirectSession: await logoutSession(ctx, req, authorization) };
    default:
      break;
  }

  const callbacks = checkCallbacks(ctx, await callerClient(ctx), req.callbacks);
  switch (intent) {
    case "login":
      return { redirectSession: await loginSession(ctx, callbacks, extra) };
    case "storesProduct": {
      const slug = requireField(req.storesProduct!.productSlug, "storesProduct.productSlug");
      return { redirectSession: session(ctx, `/products/${encodeURIComponent(slug)}`, callbacks, extra) };
    }
    case "ecomCheckout": {
      const checkoutId = requireField(req.ecomCheckout!.checkoutId, "ecomCheckout.checkoutId");
      // The browser arrives without a session on this origin: the URL carries who made the checkout.
      const handover = await createHandover(ctx, "checkout", { checkoutId, postFlowUrl: callbacks.postFlowUrl });
      return { redirectSession: session(ctx, "/checkout", { checkoutId, ...callbacks, [HANDOVER_PARAM]: handover }, extra) };
    }
    case "ecomOrderPaymentRequest": {
      const paymentRequestId = requireField(req.ecomOrderPaymentRequest!.paymentRequestId, "ecomOrderPaymentRequest.paymentRequestId");
      return { redirectSession: session(ctx, "/checkout", { paymentRequestId, ...callbacks }, extra) };
    }
    case "membersAccount":
      return { redirectSession: session(ctx, "/account", { section: req.membersAccount!.section ?? "ACCOUNT_INFO", ...callbacks }, extra) };
    // The store sells no bookings, events or plans: these land on its checkout page, which says so.
    case "eventsCheckout": {
      const { reservationId, eventSlug } = req.eventsCheckout!;
      return { redirectSession: session(ctx, "/checkout", { type: "events", reservationId, eventSlug, ...callbacks }, extra) };
    }
    case "paidPlansCheckout": {
      const planId = requireField(req.paidPlansCheckout!.planId, "paidPlansCheckout.planId");
      return {
        redirectSession: session(
          ctx,
          "/checkout",
          { type: "paidPlans", planId, checkoutData: req.paidPlansCheckout!.checkoutData, ...callbacks },
          extra,
        ),
      };
    }
    case "bookingsCheckout":
      return { redirectSession: session(ctx, "/checkout", { type: "bookings", timezone: req.bookingsCheckout!.timezone, ...callbacks }, extra) };
    case "bookingsBook":
      return { redirectSession: session(ctx, "/checkout", { type: "bookingsBook", resourceId: req.bookingsBook!.resourceId, ...callbacks }, extra) };
    default:
      throw new Error(`unhandled redirect intent ${intent}`);
  }
}
