import type { Context } from "hono";
import type { Ctx } from "./context";
import type { RoundTrips } from "./db";

/** The Hono environment every router shares. */
export interface AppEnv {
  Bindings: Env;
  Variables: { requestId: string; ctx: Ctx; trips: RoundTrips; d1: D1DatabaseSession };
}

export type AppContext = Context<AppEnv>;

/**
 * The path's id, as given (the SDK repeats it in the query string, which is ignored). Hono has already decoded it
 * once (decoding again would turn an id's `%25` into `%`); the API host refused paths whose encoding is broken.
 */
export function pathId(c: AppContext, name = "id"): string {
  return c.req.param(name) ?? "";
}
