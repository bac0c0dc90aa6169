import { redirect } from "react-router";
import type { Ctx } from "../../../worker/platform/context";
import { privateHeaders } from "../checkout/form.server";

/** Guard of every account page (the layout and each section load in parallel): members only, others log in first. */
export function requireMember(ctx: Ctx, request: Request): string {
  if (ctx.auth.kind === "member") return ctx.auth.identityId;
  const url = new URL(request.url);
  throw redirect(`/login?returnTo=${encodeURIComponent(url.pathname + url.search)}`, { headers: privateHeaders });
}
