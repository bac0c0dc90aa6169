import { describe, expect, it } from "vitest";
import { apiHost } from "#worker/app";
import apiRoutes from "../hostile/api-routes.json";

/** The API host alone, without the page host. */
const app = apiHost();

describe("the hostile-traffic suite's route list", () => {
  it("names every API route the app serves, so a new route is fuzzed from its first commit", () => {
    const served: { method: string; path: string }[] = [];
    for (const r of app.routes) {
      if (r.method === "ALL" || served.some((s) => s.method === r.method && s.path === r.path)) continue;
      served.push({ method: r.method, path: r.path });
    }
    // On a mismatch, paste the received list into tests/hostile/api-routes.json.
    expect(apiRoutes).toEqual(served);
  });
});
