import type { Ctx } from "#worker/platform/context";

/**
 * Work another folder does when a visitor signs in as a member (the cart merge). Identity sits below the cart, so
 * the composition root (worker/app/host.ts) hands the work in with `onSignIn` when its module loads. A sign-in with
 * a visitor before that is a wiring fault, and fails loudly rather than dropping the visitor's cart.
 */
export type SignInHook = (ctx: Ctx, visitorId: string, identityId: string) => Promise<unknown>;

let hook: SignInHook | null = null;

/** Sets the work done when a visitor signs in as a member; the composition root calls it once at start. */
export function onSignIn(next: SignInHook): void {
  hook = next;
}

/** Runs the sign-in work for a visitor who just signed in as this member; throws when none was set. */
export async function visitorSignedIn(ctx: Ctx, visitorId: string, identityId: string): Promise<void> {
  if (!hook) throw new Error("No sign-in work is set: the composition root must call onSignIn before members sign in");
  await hook(ctx, visitorId, identityId);
}
