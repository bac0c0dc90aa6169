import type { Context } from "hono";
import type { Ctx } from "./context";
import type { RoundTrips } from "./db";

/** The Hono environment every router shares. */
export interface AppEnv {
  Bindings: Env;
  Variables: { requestId: string; ctx: Ctx; trips: RoundTrips };
}

export type AppContext = Context<AppEnv>;

/** The path's id, as given (the SDK repeats it in the query string, which is ignored). */
export function pathId(c: AppContext, name = "id"): string {
  return decodeURIComponent(c.req.param(name) ?? "");
}
