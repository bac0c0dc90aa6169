import { SELF } from "cloudflare:test";
import { afterEach, beforeEach } from "vitest";

/** What the unmodified Wix SDK sent, as seen before it reached the Worker. */
export interface SentRequest {
  method: string;
  host: string;
  path: string;
  search: string;
  headers: Headers;
  authorization: string | null;
  /** The request body as text ("" for GET and HEAD). */
  body: string;
}

const WIX_HOSTS = new Set(["www.wixapis.com", "edge.wixapis.com"]);

/**
 * Redirects only the SDK's host: for each test, requests to www/edge.wixapis.com go unchanged to the
 * Worker, and are logged in the returned array (emptied before each test). Other requests pass through.
 */
export function redirectWixHosts(): SentRequest[] {
  const sent: SentRequest[] = [];
  let realFetch: typeof fetch;
  beforeEach(() => {
    sent.length = 0;
    realFetch = globalThis.fetch;
    globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
      const request = new Request(input, init);
      const url = new URL(request.url);
      if (!WIX_HOSTS.has(url.host)) return realFetch(input, init);
      const body = request.method === "GET" || request.method === "HEAD" ? "" : await request.text();
      const headers = new Headers(request.headers);
      sent.push({
        method: request.method,
        host: url.host,
        path: url.pathname,
        search: url.search,
        headers,
        authorization: headers.get("authorization"),
        body,
      });
      return SELF.fetch(`https://shop.test${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body: body === "" && request.method !== "POST" ? undefined : body,
      });
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });
  return sent;
}

/** What a rejected SDK call surfaces; fails the test if the call resolves. */
export async function rejection(promise: Promise<unknown>): Promise<any> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error("expected the SDK call to reject");
}

/** The part of an OAuthStrategy client's `auth` the headless member login uses. */
interface OAuthClientAuth {
  generateOAuthData(redirectUri: string, originalUri?: string): any;
  getAuthUrl(oauthData: any, opts?: any): Promise<{ authUrl: string }>;
  parseFromUrl(url: string, responseMode?: "query" | "fragment" | "web_message"): { code?: string; state?: string; error?: string };
  getMemberTokens(code: string, state: string, oauthData: any): Promise<any>;
}

/**
 * Member tokens the headless way: getAuthUrl with prompt none, response mode query and the session
 * token login gave; follow the authorize URL; getMemberTokens with the code. The caller decides whether to setTokens.
 */
export async function sdkMemberTokens(auth: OAuthClientAuth, sessionToken: string, redirectUri = "https://app.example/callback") {
  const oauthData = auth.generateOAuthData(redirectUri, "https://app.example/");
  // The SDK's code reads opts.sessionToken; its published types do not list it yet.
  const { authUrl } = await auth.getAuthUrl(oauthData, { prompt: "none", responseMode: "query", sessionToken });
  const res = await SELF.fetch(authUrl, { redirect: "manual" });
  const location = res.headers.get("location");
  if (res.status !== 302 || !location) throw new Error(`authorize answered ${res.status} without a redirect`);
  const { code, state, error } = auth.parseFromUrl(location, "query");
  if (error || !code || !state) throw new Error(`authorize gave no code: ${error ?? location}`);
  return { tokens: await auth.getMemberTokens(code, state, oauthData), oauthData, code, authUrl };
}
