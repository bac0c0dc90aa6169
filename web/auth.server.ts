import type { Problem } from "#web/components/ui/form";
import type { ProblemWording } from "#web/components/ui/form.server";
import { getIdentitySettings } from "#worker/identity";
import type { StateResult } from "#worker/identity";
import type { Ctx } from "#worker/platform/context";
import { config } from "#worker/platform/config";

/**
 * Server helpers of the login pages (login, register, verify, forgot and reset password): the return path, the
 * outcome of the state machine as page data, and errors as words a shopper reads.
 */

/** The longest return path a redirect carries (as sent, after encoding), so every Location the shop sends is short. */
export const MAX_RETURN_PATH = 2048;

/**
 * A safe return path: same-origin and relative only (`/…`, never `//host` or `/\\host`, no scheme), or null. The
 * authorize endpoint sends people here with `returnTo=/oauth2/authorize?…` to continue an OAuth flow. One longer than
 * MAX_RETURN_PATH goes back to its page without the query.
 */
export function safeReturnTo(value: FormDataEntryValue | string | null | undefined): string | null {
  if (typeof value !== "string" || value.length === 0 || value.length > 200_000) return null;
  if (!value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\")) return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u001f\u007f]/.test(value)) return null;
  try {
    const base = "https://return.invalid";
    const url = new URL(value, base);
    if (url.origin !== base) return null;
    return boundedReturnPath(url);
  } catch {
    return null;
  }
}

/**
 * A same-site URL as a return path of at most MAX_RETURN_PATH characters (measured encoded as a query value when
 * `asParam`): with its query when that fits, else its path alone, else null.
 */
export function boundedReturnPath(url: URL, asParam = false): string | null {
  const size = (s: string) => (asParam ? encodeURIComponent(s).length : s.length);
  for (const path of [url.pathname + url.search + url.hash, url.pathname]) if (size(path) <= MAX_RETURN_PATH) return path;
  return null;
}

/** A sign-in page that comes back to this request's page afterwards (without its query when that is too long). */
export function signInPath(login: string, request: Request): string {
  const back = boundedReturnPath(new URL(request.url), true);
  return back ? `${login}?returnTo=${encodeURIComponent(back)}` : login;
}

/** The return path with the session token appended as a query parameter. */
export function withSessionToken(returnTo: string, sessionToken: string): string {
  const url = new URL(returnTo, "https://return.invalid");
  url.searchParams.set("sessionToken", sessionToken);
  return url.pathname + url.search + url.hash;
}

/** The client address, for per-address rate limits. */
export function clientOf(request: Request) {
  return { ip: request.headers.get("cf-connecting-ip")?.trim() || undefined };
}

/** What a page shows after register, login, verify or recover (no session token: that only goes to returnTo). */
export type Outcome =
  | { state: "SUCCESS"; email: string }
  | { state: "REQUIRE_EMAIL_VERIFICATION"; email: string; stateToken: string }
  | { state: "REQUIRE_OWNER_APPROVAL"; email: string };

export function outcomeOf(result: StateResult): Outcome {
  const email = result.identity.email.address;
  if (result.state === "REQUIRE_EMAIL_VERIFICATION") return { state: result.state, email, stateToken: result.stateToken };
  return { state: result.state, email };
}

const MESSAGES: Record<string, string> = {
  "-19976": "The email or password is incorrect.",
  "-19995": "An account with this email already exists. Log in, or reset your password.",
  "-19973": "This account needs a new password. Use “Forgot your password?” to set one.",
  "-19971": "Please complete the captcha.",
  "-19970": "The captcha check failed. Please try again.",
  INVALID_STATE_TOKEN: "This code has expired or was already used. Log in again to get a new one.",
  VERIFICATION_ATTEMPTS_EXCEEDED: "Too many wrong codes. Log in again to get a new one.",
  INVALID_RECOVERY_TOKEN: "This link is invalid, has expired or was already used. Ask for a new one.",
};

const FIELD_NAMES: Record<string, { name: string; label: string }> = {
  "loginId.email": { name: "email", label: "Email" },
  email: { name: "email", label: "Email" },
  password: { name: "password", label: "Password" },
  newPassword: { name: "password", label: "Password" },
  code: { name: "code", label: "Code" },
  "profile.firstName": { name: "firstName", label: "First name" },
  "profile.lastName": { name: "lastName", label: "Last name" },
};

/** How the login pages word a refusal: their own sentences for the identity codes, each field by its label. */
export const SIGN_IN: ProblemWording = {
  messages: MESSAGES,
  fieldOf: (path) => FIELD_NAMES[path] ?? { name: path, label: "This value" },
};

/** The Turnstile site key to render, when the store asks for a captcha (TURNSTILE_SITE_KEY). */
export async function captchaSiteKey(ctx: Ctx): Promise<string | null> {
  const settings = await getIdentitySettings(ctx);
  if (!settings.captcha) return null;
  return config(ctx.env).turnstileSiteKey ?? "";
}

/**
 * The Turnstile site key to render after a login asked for a captcha the store does not always ask for (an account
 * guessed at from many addresses, tried from a new one), or null.
 */
export function captchaSiteKeyAfter(ctx: Ctx, problem: Problem): string | null {
  if (problem.code !== "-19971" && problem.code !== "-19970") return null;
  return config(ctx.env).turnstileSiteKey;
}

/**
 * What the login and register pages load: where to send the shopper afterwards (the `returnTo` asked for, else the
 * same-site page they came from) and the captcha site key when the captcha is on.
 */
export async function signInPageData(request: Request, ctx: Ctx) {
  const returnTo = safeReturnTo(new URL(request.url).searchParams.get("returnTo")) ?? cameFrom(request);
  return { returnTo, captchaSiteKey: await captchaSiteKey(ctx) };
}

/** The captcha token a Turnstile widget put in the form, in the API's shape. */
export function captchaTokensOf(form: FormData) {
  const token = form.get("cf-turnstile-response");
  return typeof token === "string" && token ? [{ Turnstile: token }] : undefined;
}

/** Form text, trimmed of nothing (passwords keep their spaces), or "" when absent. */
export function field(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === "string" ? v : "";
}

/** Headers of every login page: never cached (they carry one-time tokens and per-person answers). */
export const noStore = { "Cache-Control": "no-store" };

const AUTH_PAGES = ["/login", "/register", "/verify", "/forgot-password", "/reset-password", "/logout"];

/**
 * The shop page a shopper followed a "Log in" or "Create account" link from (the Referer, when it is this site and
 * not another login page), so signing in takes them back there. Null otherwise: they go home.
 */
export function cameFrom(request: Request): string | null {
  const referer = request.headers.get("referer");
  if (!referer) return null;
  try {
    const from = new URL(referer);
    if (from.origin !== new URL(request.url).origin || AUTH_PAGES.includes(from.pathname)) return null;
    return safeReturnTo(from.pathname + from.search);
  } catch {
    return null;
  }
}
