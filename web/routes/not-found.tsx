import type { Route } from "./+types/not-found";

/** Any path no route owns: the root error boundary draws the 404 page inside the shop's frame. */
export function loader(_: Route.LoaderArgs) {
  throw new Response("Not found", { status: 404 });
}

export default function NotFound() {
  return null;
}
