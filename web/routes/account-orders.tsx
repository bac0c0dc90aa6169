import { Link } from "react-router";
import { requireMember } from "#web/components/account/account.server";
import { ownOrders } from "#web/components/account/order.server";
import { dateText, StatusBadge } from "#web/components/account/order-view";
import { privateHeaders } from "#web/components/checkout/form.server";
import { SECTION_HOLDINGS, type AccountSection } from "#web/components/account/sections";
import type { Route } from "./+types/account-orders";

export function meta() {
  return [{ title: "Your orders — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => privateHeaders;

/**
 * ORDERS: the member's orders, newest first, with their statuses. SUBSCRIPTIONS, BOOKINGS and EVENTS
 * (`?section=…`) list the orders holding such items.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  requireMember(context.services, request);
  const section = SECTION_HOLDINGS[new URL(request.url).searchParams.get("section") as AccountSection];
  return { title: section?.title ?? "Orders", orders: await ownOrders(context.services, section?.holding) };
}

export default function AccountOrders({ loaderData }: Route.ComponentProps) {
  const { title, orders } = loaderData;
  return (
    <>
      <h1>{title}</h1>
      {orders.length === 0 ? (
        <div className="empty-state">
          <p>{title === "Orders" ? "You have no orders yet." : `You have no ${title.toLowerCase()} yet.`}</p>
          <p>
            <Link to="/" className="button primary">
              Start shopping
            </Link>
          </p>
        </div>
      ) : (
        <ul className="order-list">
          {orders.map((o) => (
            <li key={o.id} className="order-card">
              <div className="order-card-head">
                <h2>
                  <Link to={`/account/orders/${o.id}`}>
                    Order <span className="order-number">{o.number}</span>
                  </Link>
                </h2>
                <p className="muted">
                  {dateText(o.placed)} · {o.items} {o.items === 1 ? "item" : "items"} · <strong>{o.total}</strong>
                </p>
              </div>
              <p className="order-badges">
                <StatusBadge status={o.status} /> <StatusBadge status={o.paymentStatus} /> <StatusBadge status={o.fulfillmentStatus} />
              </p>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
