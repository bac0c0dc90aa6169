import { redirect } from "react-router";
import { endConsoleSession, endConsoleSessionsEverywhere } from "#worker/identity";
import { clearConsoleCookie, readConsoleToken } from "#web/console.server";
import type { Route } from "./+types/logout";

/** Signing out is a POST (a prefetch must not end a session); GET goes to the sign-in page. */
export function loader() {
  return redirect("/console/login");
}

/**
 * Ends the console session: its record is deleted, so the cookie stops working even if it was copied. With
 * scope=everywhere, every other session of the same person ends too (other browsers, storefront and API tokens).
 */
export async function action({ request, context }: Route.ActionArgs) {
  const token = readConsoleToken(request);
  const everywhere = (await request.formData().catch(() => null))?.get("scope") === "everywhere";
  if (token && everywhere) await endConsoleSessionsEverywhere(context.services, token);
  else if (token) await endConsoleSession(context.services.env, token);
  return redirect("/console/login", { headers: { "Set-Cookie": clearConsoleCookie() } });
}
