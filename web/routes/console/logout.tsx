import { redirect } from "react-router";
import { endConsoleSession } from "../../../worker/identity/console-sessions";
import { clearConsoleCookie, readConsoleToken } from "../../console.server";
import type { Route } from "./+types/logout";

/** Signing out is a POST (a prefetch must not end a session); GET goes to the sign-in page. */
export function loader() {
  return redirect("/console/login");
}

/** Ends the console session: its record is deleted, so the cookie stops working even if it was copied. */
export async function action({ request, context }: Route.ActionArgs) {
  const token = readConsoleToken(request);
  if (token) await endConsoleSession(context.services.env, token);
  return redirect("/console/login", { headers: { "Set-Cookie": clearConsoleCookie() } });
}
