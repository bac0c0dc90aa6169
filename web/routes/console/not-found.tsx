import { data } from "react-router";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/not-found";

/** Any console path no page owns: the console layout's error boundary shows the 404 inside the console. */
export const loader = staffOnly((_: Route.LoaderArgs) => {
  throw data("There is no console page here. It may have been deleted, or the link may be mistyped.", { status: 404 });
});

export default function ConsoleNotFound() {
  return null;
}
