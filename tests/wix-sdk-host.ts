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
 * Redirects only the SDK's host (wire doc §1.2): for each test, requests to www/edge.wixapis.com go unchanged to the
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
      sent.push({ method: request.method, host: url.host, path: url.pathname, search: url.search, headers, authorization: headers.get("authorization"), body });
      return SELF.fetch(`https://shop.test${url.pathname}${url.search}`, { method: request.method, headers, body: body === "" && request.method !== "POST" ? undefined : body });
    };
  });
  afterEach(() => {
    globalThis.fetch = realFetch;
  });
  return sent;
}
