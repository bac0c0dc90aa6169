import { Hono } from "hono";
import type { AppEnv } from "../platform/http";

/** Merchant configuration of discounts, coupons, shipping, tax and fees (full paths; mounted at /). */
export const pricingRoutes = new Hono<AppEnv>();
