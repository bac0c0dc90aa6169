import { walkRoutes } from "./route-walk";

// The route permission table's walk (tests/platform/route-walk.ts), for order and automation writes.
walkRoutes(["orders.write", "automations.manage"]);
