import type { Ctx } from "#worker/platform/context";

/** Work another folder does when a visitor signs in as a member: the composition root sets the cart merge. */
export type SignInHook = (ctx: Ctx, visitorId: string, identityId: string) => Promise<unknown>;

let hook: SignInHook | null = null;

/** Sets the work done when a visitor signs in as a member; the composition root calls it once at start. */
export function onSignIn(next: SignInHook): void {
  hook = next;
}

/** Runs the sign-in hook (if one is set) for a visitor who just signed in as this member. */
export async function visitorSignedIn(ctx: Ctx, visitorId: string, identityId: string): Promise<void> {
  if (hook) await hook(ctx, visitorId, identityId);
}
