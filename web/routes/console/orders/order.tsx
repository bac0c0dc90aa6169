import { data } from "react-router";
import { ApiError } from "#worker/platform/errors";
import { dateText } from "#web/components/account/order-view";
import { type OrderActionResult, OrderActions, orderChanges } from "#web/components/console/order-actions";
import { OrderBuyer, OrderHistory, OrderItems } from "#web/components/console/order-panels";
import { OrderRefunds } from "#web/components/console/order-refunds";
import { OrderNoteForm, OrderPrintLinks } from "#web/components/console/order-extras";
import { OrderBadge } from "#web/components/console/orders";
import { consoleOrder } from "#web/components/console/orders.server";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary } from "#web/components/ui/form";
import { CONSOLE, problemOf, readForm } from "#web/components/ui/form.server";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-orders.css";
import type { Route } from "./+types/order";
import { changeOrder, fulfilFieldOf, refundFieldOf, type OrderIntent } from "./order.server";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.order ? `Order #${d.order.number} — Console` : "Order — Console",
);

export const headers = () => consoleHeaders;

/** One order: everything the merchant needs to ship it or answer the buyer (two D1 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  try {
    return { order: await consoleOrder(context.services, params.orderId) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such order.", { status: 404 });
    throw err;
  }
});

/** The merchant's changes, each through the orders service (./order.server.ts). A refused change writes nothing. */
export const action = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const values = readForm(await request.formData());
  const intent = (values.intent ?? "") as OrderIntent;
  try {
    return data<OrderActionResult>({ ok: await changeOrder(context.services, params.orderId, intent, values), intent, problem: null });
  } catch (err) {
    const fieldOf = intent === "fulfil" ? fulfilFieldOf(values) : intent === "refund-payment" ? refundFieldOf(values) : undefined;
    const problem = problemOf(err, { ...CONSOLE, fieldOf });
    return data<OrderActionResult>({ ok: null, intent, problem, values }, { status: problem.status ?? 400 });
  }
});

export default function ConsoleOrder({ loaderData, actionData }: Route.ComponentProps) {
  const { order } = loaderData;
  const canWrite = useCan("orders.write");
  const result = actionData;
  const can = orderChanges(order);
  // A refused action whose form is not on the page (e.g. for lack of permission) is reported on its own.
  const shown = canWrite && !!result && (result.intent === "note" || (Object.hasOwn(can.allowed, result.intent) && can.allowed[result.intent]));
  return (
    <>
      <PageHead
        back={["/console/orders", "Orders"]}
        title={
          <>
            {`Order #${order.number}`} <OrderBadge status={order.paymentStatus} /> <OrderBadge status={order.fulfillmentStatus} />{" "}
            {can.canceled && <OrderBadge status="CANCELED" />}
          </>
        }
      />
      <p className="console-muted">Placed {dateText(order.placed)}</p>
      <OrderPrintLinks id={order.id} />
      <Notice text={result?.ok} />

      <div className="order-layout">
        <div>
          <OrderItems order={order} />
          <OrderRefunds order={order} />
          <OrderHistory order={order} />
          {canWrite && <OrderNoteForm problem={result?.intent === "note" ? result.problem : null} count={order.activities.length} />}
        </div>
        <div>
          <OrderBuyer order={order} />
          {canWrite && can.any && <OrderActions order={order} result={result} />}
          {!canWrite && (
            <p className="console-muted">
              You can look at this order; changing it needs the permission to “Mark orders paid, fulfil, cancel and refund” from the store owner.
            </p>
          )}
          {result?.problem && !shown && <ErrorSummary problem={result.problem} />}
        </div>
      </div>
    </>
  );
}
