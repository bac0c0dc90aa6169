import { describe, expect, it, vi } from "vitest";
import type { Ctx } from "#worker/platform/context";
import { onSignIn, visitorSignedIn } from "#worker/identity/sign-in";

// The sign-in work is the composition root's to set: without it a visitor's sign-in fails instead of losing the cart.
describe("the sign-in work", () => {
  const ctx = {} as Ctx;

  it("fails loudly while nothing has set it", async () => {
    await expect(visitorSignedIn(ctx, "visitor-1", "member-1")).rejects.toThrow(/onSignIn/);
  });

  it("runs what onSignIn set, with the visitor and the member", async () => {
    const work = vi.fn(async () => undefined);
    onSignIn(work);
    await visitorSignedIn(ctx, "visitor-1", "member-1");
    expect(work).toHaveBeenCalledWith(ctx, "visitor-1", "member-1");
  });
});
