import type { Ctx } from "#worker/platform/context";

// What the page host hands every loader and action: the bindings, the same service context the API
// routes use, so pages call services in-process, and this response's Content-Security-Policy nonce.
declare module "react-router" {
  interface AppLoadContext {
    cloudflare: { env: Env; ctx: ExecutionContext };
    services: Ctx;
    /** A fresh random value per page response; every inline script must carry it (script-src 'nonce-…'). */
    cspNonce: string;
    /** On /console pages: the signed-in owner's or staff member's email (web/console.server.ts), else null. */
    consoleEmail: string | null;
    /**
     * Render the whole page before sending any of it, as for crawlers: a page going into the edge cache (an anonymous
     * catalogue page; worker/catalog/cache.ts, keepPage) is sent as the bytes that are kept.
     */
    wholePage: boolean;
  }
}
