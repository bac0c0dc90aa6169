import { describe, expect, it } from "vitest";
import { apiHost } from "#worker/app";
import { PERMISSIONS } from "#worker/platform/context";
import { ROUTE_PERMISSIONS } from "#worker/platform/route-permissions";
import { walkRoutes } from "./route-walk";

/** The API host alone, without the page host. */
const app = apiHost();

/**
 * The route permission table (worker/platform/route-permissions.ts) against the app: it names exactly the app's
 * routes; and the walk (route-walk.ts) of the owner's, settings and impersonation routes and of the staff reads. The
 * other permissions are walked in route-permissions-catalog.test.ts and route-permissions-operations.test.ts.
 */

/** The app's routes as `METHOD /path`, as the table keys them. */
function servedRoutes(): string[] {
  const served = new Set<string>();
  for (const r of app.routes) if (r.method !== "ALL") served.add(`${r.method} ${r.path}`);
  return [...served];
}

describe("the route permission table", () => {
  it("names every route the app serves and no other (a new route needs its entry)", () => {
    const served = servedRoutes();
    const listed = Object.keys(ROUTE_PERMISSIONS);
    expect(
      served.filter((r) => !listed.includes(r)),
      "routes without an entry",
    ).toEqual([]);
    expect(
      listed.filter((r) => !served.includes(r)),
      "entries for no route",
    ).toEqual([]);
  });

  it("names only known permissions", () => {
    const known = new Set<string>(["public", "own", "staff", "owner", "signature", ...PERMISSIONS]);
    for (const [route, rule] of Object.entries(ROUTE_PERMISSIONS)) {
      expect(known.has(rule.needs), route).toBe(true);
      for (const p of Object.values(rule.also ?? {})) expect(PERMISSIONS, route).toContain(p);
    }
  });
});

walkRoutes(["owner", "settings.manage", "members.impersonate", "cms.write"], { staffReads: true });
