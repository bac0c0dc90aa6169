import { defineConfig } from "vitest/config";
import { aliases } from "./aliases";

// Plain Vitest on Node for the pure modules (no bindings): pricing, query compiler, money, CSV, rich text,
// validation, configuration. Runs in seconds; the workerd suites (vitest.config.ts) leave tests/unit out.
export default defineConfig({
  resolve: { alias: aliases },
  test: {
    include: ["tests/unit/**/*.test.ts"],
    environment: "node",
  },
});
