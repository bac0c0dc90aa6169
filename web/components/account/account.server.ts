import { redirect } from "react-router";
import type { Ctx } from "#worker/platform/context";
import { signInPath } from "#web/auth.server";
import { privateHeaders } from "../checkout/form.server";

/** Guard of every account page (the layout and each section load in parallel): members only, others log in first. */
export function requireMember(ctx: Ctx, request: Request): string {
  if (ctx.auth.kind === "member") return ctx.auth.identityId;
  throw redirect(signInPath("/login", request), { headers: privateHeaders });
}
