import { Hono } from "hono";
import type { AppEnv } from "../platform/http";

/** The current cart: mounted at /v1/carts/current and /ecom/v1/carts/current. */
export const currentCartRoutes = new Hono<AppEnv>();
