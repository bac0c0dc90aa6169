import type { Ctx } from "../worker/platform/context";

// What the Worker hands every loader and action (worker/app.ts): the bindings and the same service context the
// API routes use, so pages call services in-process (DESIGN.md §4).
declare module "react-router" {
  interface AppLoadContext {
    cloudflare: { env: Env; ctx: ExecutionContext };
    services: Ctx;
  }
}

export {};
