import { useEffect } from "react";
import { data, Form, Link, redirect, useRevalidator } from "react-router";
import { ownOrder } from "#web/components/account/order.server";
import { OrderDetails } from "#web/components/account/order-view";
import { Downloads } from "#web/components/account/downloads";
import { ownOrderDownloads } from "#worker/downloads";
import { privateHeaders, text } from "#web/components/checkout/form.server";
import { confirmReturn, resumePayment } from "#web/components/checkout/checkout.server";
import { postFlowUrlOf } from "#worker/identity";
import { shopSettings } from "#worker/store";
import "#web/styles/commerce.css";
import type { Route } from "./+types/order-confirmation";

export function meta({ data: d }: Route.MetaArgs) {
  return [
    { title: d?.order ? `Order ${d.order.number} confirmed — Edge Storefront` : "Order — Edge Storefront" },
    { name: "robots", content: "noindex" },
  ];
}

export const headers = () => privateHeaders;

/** An online order whose payment has not arrived: placed, items reserved, not paid yet. */
const awaitingPayment = (o: { status: string; paymentStatus: string }) => o.status === "INITIALIZED" && o.paymentStatus === "NOT_PAID";

/**
 * Only the shopper who placed the order sees it; anyone else (and anyone without a session) gets 404. Back from
 * Stripe's page (`session_id`) before the webhook, the loader asks Stripe and marks the order paid if it is.
 */
export async function loader({ request, params, context }: Route.LoaderArgs) {
  let order = await ownOrder(context.services, params.orderId);
  if (!order) throw data(null, { status: 404, headers: privateHeaders });
  const sessionId = new URL(request.url).searchParams.get("session_id");
  if (sessionId && awaitingPayment(order) && (await confirmReturn(context.services, order.id, sessionId))) {
    order = (await ownOrder(context.services, params.orderId)) ?? order;
  }
  // How long an unpaid offline order keeps its items (the KV copy of the store settings: no D1 round trip).
  const holdHours = order.offline && order.paymentStatus !== "PAID" ? (await shopSettings(context.services)).unpaidOrderHoldHours : 0;
  // An order handed over from a headless site goes back there (the URL its client allows, kept when it arrived).
  const [downloads, postFlowUrl] = await Promise.all([
    ownOrderDownloads(context.services, order.id),
    order.checkoutId ? postFlowUrlOf(context.services.env, order.checkoutId) : null,
  ]);
  return {
    order,
    member: context.services.auth.kind === "member",
    holdHours,
    returned: !!sessionId,
    awaiting: awaitingPayment(order),
    downloads,
    postFlowUrl,
  };
}

/** intent=pay: the hosted payment page of this unpaid order again. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const form = await request.formData();
  const here = `/orders/${encodeURIComponent(params.orderId)}/confirmation`;
  if (text(form, "intent") !== "pay") throw redirect(here, { headers: privateHeaders });
  const url = await resumePayment(context.services, params.orderId);
  if (!url) throw data(null, { status: 404, headers: privateHeaders });
  throw redirect(url, { headers: privateHeaders });
}

/** While the payment is being confirmed, the page asks again every 2 seconds (for about a minute). */
function useRecheck(active: boolean) {
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    if (!active) return;
    let left = 30;
    const timer = setInterval(() => {
      if (left-- <= 0) return clearInterval(timer);
      if (state === "idle") void revalidate();
    }, 2000);
    return () => clearInterval(timer);
  }, [active, revalidate, state]);
}

export default function OrderConfirmation({ loaderData }: Route.ComponentProps) {
  const { order, member, holdHours, returned, awaiting, downloads, postFlowUrl } = loaderData;
  useRecheck(awaiting && returned);
  return (
    <main className="page commerce-page narrow" id="main">
      <div className="confirmation-head" role="status">
        <h1>Thank you for your order</h1>
        {awaiting && returned && (
          <p id="payment-state" className="payment-processing">
            Payment processing: we are waiting for the payment provider to confirm your payment. This page updates by itself.
          </p>
        )}
        {awaiting && !returned && (
          <Form method="post" id="payment-state">
            <p>Your items are reserved, but the order is not paid yet.</p>
            <input type="hidden" name="intent" value="pay" />
            <button type="submit" className="button primary">
              Pay now · {order.totals.total}
            </button>
          </Form>
        )}
        {!order.offline && order.paymentStatus === "PAID" && (
          <p id="payment-state" className="payment-paid">
            Paid: your payment was received.
          </p>
        )}
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
      <Downloads downloads={downloads} />
      <OrderDetails order={order} />
      {postFlowUrl && (
        <p className="actions">
          <a href={postFlowUrl} id="post-flow-link" className="button primary">
            Back to {new URL(postFlowUrl).host}
          </a>
        </p>
      )}
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
