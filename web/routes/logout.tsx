import { redirect } from "react-router";
import { memberLogout } from "#web/member-session.server";
import type { Route } from "./+types/logout";

/** Logging out is a POST (a link prefetch must not end a session); GET just goes home. */
export function loader() {
  return redirect("/");
}

export async function action({ request, context }: Route.ActionArgs) {
  return memberLogout(context.services, request, "/");
}
