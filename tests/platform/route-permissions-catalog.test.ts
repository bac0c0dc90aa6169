import { walkRoutes } from "./route-walk";

// The route permission table's walk (tests/platform/route-walk.ts), for the catalogue's and inventory's writes.
walkRoutes(["catalog.write", "inventory.write"]);
