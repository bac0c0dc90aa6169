import { data, Link } from "react-router";
import { ownOrder } from "#web/components/account/order.server";
import { OrderDetails } from "#web/components/account/order-view";
import { privateHeaders } from "#web/components/checkout/form.server";
import { shopSettings } from "#worker/store/settings";
import "#web/styles/commerce.css";
import type { Route } from "./+types/order-confirmation";

export function meta({ data: d }: Route.MetaArgs) {
  return [
    { title: d?.order ? `Order ${d.order.number} confirmed — Edge Storefront` : "Order — Edge Storefront" },
    { name: "robots", content: "noindex" },
  ];
}

export const headers = () => privateHeaders;

/** Only the shopper who placed the order sees it; anyone else (and anyone without a session) gets 404. */
export async function loader({ params, context }: Route.LoaderArgs) {
  const order = await ownOrder(context.services, params.orderId);
  if (!order) throw data(null, { status: 404, headers: privateHeaders });
  // How long an unpaid offline order keeps its items (the KV copy of the store settings: no D1 round trip).
  const holdHours = order.offline && order.paymentStatus !== "PAID" ? (await shopSettings(context.services)).unpaidOrderHoldHours : 0;
  return { order, member: context.services.auth.kind === "member", holdHours };
}

export default function OrderConfirmation({ loaderData }: Route.ComponentProps) {
  const { order, member, holdHours } = loaderData;
  return (
    <main className="page commerce-page narrow" id="main">
      <div className="confirmation-head" role="status">
        <h1>Thank you for your order</h1>
        <p>
          Your order number is <strong className="order-number">{order.number}</strong>. We sent a confirmation to <strong>{order.email}</strong>.
        </p>
        {order.offline && order.paymentStatus !== "PAID" && order.status !== "CANCELED" && (
          <p>
            {`You chose to pay offline: the shop will tell you how to pay. Your items are reserved for you${
              holdHours > 0 ? ` for ${holdHours} hours; if the payment has not arrived by then, the order is cancelled and you owe nothing.` : "."
            }`}
          </p>
        )}
      </div>
      <OrderDetails order={order} />
      <p className="actions">
        {member ? (
          <Link to={`/account/orders/${order.id}`}>See it in your orders</Link>
        ) : (
          <span>
            <Link to="/register">Create an account</Link> to check out faster next time.
          </span>
        )}{" "}
        <Link to="/" className="button secondary">
          Continue shopping
        </Link>
      </p>
    </main>
  );
}
