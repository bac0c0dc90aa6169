import { defineConfig } from "drizzle-kit";

// Each domain keeps its tables in worker/<domain>/tables.ts; migrations are generated from all of them.
export default defineConfig({
  dialect: "sqlite",
  schema: "./worker/*/tables.ts",
  out: "./migrations",
});
