import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { cartReads } from "#worker/cart/cart";
import { queryPlan, serviceCtx } from "../helpers";

/**
 * Finding a shopper's cart must cost the same in a store with a million open carts as in one with ten: every cart
 * read goes through the partial index of active carts by owner, never through a scan of all active carts (which is
 * what SQLite does when the status is a bound parameter, or missing from one branch of an OR).
 */

const ctx = () => serviceCtx().ctx;
const plan = (statement: unknown) => queryPlan(statement as Parameters<typeof queryPlan>[0]);

describe("cart reads", () => {
  it.each([
    ["a visitor", [{ kind: "visitor" as const, id: "v-1" }]],
    [
      "a member and the visitor cart they bring",
      [
        { kind: "member" as const, id: "m-1" },
        { kind: "visitor" as const, id: "v-1" },
      ],
    ],
  ])("find %s's active cart and its lines through the owner index", async (_label, owners) => {
    const [cartsRead, linesRead, productsRead, variantsRead] = cartReads(ctx(), owners, ["p-1"]).statements;
    for (const p of [await plan(cartsRead), await plan(linesRead), await plan(productsRead), await plan(variantsRead)]) {
      expect(p).toContain("carts_active_owner_unique");
      expect(p).not.toContain("carts_status_activity_idx");
      expect(p).not.toMatch(/SCAN (carts|products|variants)\b/);
    }
  });

  it("read the catalogue rows of the lines by index, not by a scan of the store's variants", async () => {
    const { statements } = cartReads(ctx(), [{ kind: "visitor", id: "v-1" }], [], sql`'ck-1'`);
    const [products, variants] = [await plan(statements[2]), await plan(statements[3])];
    expect(products).not.toMatch(/SCAN products\b/);
    expect(variants).not.toMatch(/SCAN variants\b/);
    expect(variants).not.toContain("CORRELATED");
  });

  it("for a checkout read by id (no owner), read no cart at all: only the checkout's catalogue rows, by index", async () => {
    const { statements } = cartReads(ctx(), [], [], sql`'ck-1'`);
    expect(statements).toHaveLength(2);
    for (const p of [await plan(statements[0]), await plan(statements[1])]) {
      expect(p).not.toMatch(/\b(carts|cart_line_items|c|l)\b/);
      expect(p).not.toMatch(/SCAN (products|variants)\b/);
    }
  });
});
