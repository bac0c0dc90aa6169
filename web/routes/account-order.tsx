import { data, Link } from "react-router";
import { requireMember } from "#web/components/account/account.server";
import { ownOrder } from "#web/components/account/order.server";
import { OrderDetails } from "#web/components/account/order-view";
import { Downloads } from "#web/components/account/downloads";
import { ownOrderDownloads } from "#worker/downloads";
import { privateHeaders } from "#web/components/checkout/form.server";
import type { Route } from "./+types/account-order";

export function meta({ data: d }: Route.MetaArgs) {
  return [{ title: d?.order ? `Order ${d.order.number} — Edge Storefront` : "Order — Edge Storefront" }, { name: "robots", content: "noindex" }];
}

export const headers = () => privateHeaders;

/** One of the member's orders; someone else's is a 404. */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  requireMember(context.services, request);
  const order = await ownOrder(context.services, params.orderId);
  if (!order) throw data(null, { status: 404, headers: privateHeaders });
  return { order, downloads: await ownOrderDownloads(context.services, order.id) };
}

export default function AccountOrder({ loaderData }: Route.ComponentProps) {
  const { order, downloads } = loaderData;
  return (
    <>
      <p>
        <Link to="/account/orders">← All orders</Link>
      </p>
      <h1>
        Order <span className="order-number">{order.number}</span>
      </h1>
      <Downloads downloads={downloads} />
      <OrderDetails order={order} />
    </>
  );
}
