import { Link, redirect, useLoaderData } from "react-router";
import { restoreAbandonedCart } from "#worker/automations";
import { noStore } from "#web/auth.server";
import type { Route } from "./+types/cart-recover";

export function meta() {
  return [{ title: "Your cart — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => noStore;

const MESSAGES = {
  NOT_FOUND: "This cart link is not valid. It may have been copied incompletely.",
  EXPIRED: "This cart link has expired.",
  ALREADY_RECOVERED: "This cart was already checked out. Thank you for your order!",
  NOTHING_TO_RESTORE: "The items from this cart are no longer available.",
  NO_SESSION: "We could not open your cart in this browser.",
} as const;

/**
 * The recovery link of an abandoned-cart email: restores that cart as this browser's current cart (the same
 * service the automations use) and goes to /cart. A link that no longer works gets a friendly page instead.
 */
export async function loader({ params, context }: Route.LoaderArgs) {
  // Bots (no session) never restore anything: a link preview must not fill a cart.
  if (context.services.auth.kind !== "visitor" && context.services.auth.kind !== "member") return { problem: "NO_SESSION" as const };
  const outcome = await restoreAbandonedCart(context.services, params.token ?? "");
  if (outcome.ok) throw redirect("/cart", { headers: noStore });
  return { problem: outcome.reason };
}

export default function CartRecover() {
  const { problem } = useLoaderData<typeof loader>();
  return (
    <main className="page">
      <h1>We couldn't restore that cart</h1>
      <p className="form-error" role="alert">
        {MESSAGES[problem]}
      </p>
      <p>
        <Link to="/shop">Continue shopping</Link> or <Link to="/cart">see your current cart</Link>.
      </p>
    </main>
  );
}
