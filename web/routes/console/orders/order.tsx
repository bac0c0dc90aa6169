import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { cancelOrder, createFulfillment, fulfillmentRequest, markAsPaid, setRefundStatus } from "#worker/orders";
import { ApiError } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { dateText, Shipments } from "#web/components/account/order-view";
import { AskFirstForm } from "#web/components/console/confirm";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { OrderBadge } from "#web/components/console/orders";
import { consoleOrder } from "#web/components/console/orders.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-orders.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/order";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.order ? `Order #${d.order.number} — Console` : "Order — Console") }];
}

export const headers = () => consoleHeaders;

/** One order: everything the merchant needs to ship it or answer the buyer (two D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  try {
    return { order: await consoleOrder(context.services, params.orderId) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such order.", { status: 404 });
    throw err;
  }
}

type Intent = "mark-paid" | "fulfil" | "cancel" | "refund";

/**
 * The merchant's changes, each through the orders service (which checks the orders.write permission, guards the
 * order's state, and writes the activity and the event in one batch). A refused change writes nothing.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const id = params.orderId;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "") as Intent;
  const values = Object.fromEntries([...form].map(([k, v]) => [k, String(v)]));
  try {
    switch (intent) {
      case "mark-paid":
        await markAsPaid(ctx, id);
        return { ok: "Marked as paid.", intent, problem: null };
      case "fulfil": {
        // Every line with a quantity to ship, in the order the form lists them (the service's field errors point at
        // lineItems[i], which the page maps back to the line's input).
        const lineItems = [...form.keys()]
          .filter((k) => k.startsWith("qty:"))
          .map((k) => ({ id: k.slice(4), quantity: Number(form.get(k)) }))
          .filter((l) => String(form.get(`qty:${l.id}`)).trim() !== "" && l.quantity !== 0);
        if (lineItems.length === 0) throw new ApiError(400, "NOTHING_TO_SHIP", "Enter how many of at least one item you are shipping");
        const trackingInfo = Object.fromEntries(
          (["trackingNumber", "shippingProvider", "trackingLink"] as const).map((k) => [k, String(form.get(k) ?? "").trim() || null]),
        );
        const req = parseWith(fulfillmentRequest, { lineItems, trackingInfo });
        await createFulfillment(ctx, id, req);
        return {
          ok: trackingInfo.trackingNumber ? `Shipped, with tracking number ${trackingInfo.trackingNumber}.` : "Shipped.",
          intent,
          problem: null,
        };
      }
      case "cancel":
        await cancelOrder(ctx, id, { restockAllItems: form.get("restock") === "on" });
        return { ok: form.get("restock") === "on" ? "Cancelled; the items are back in stock." : "Cancelled.", intent, problem: null };
      case "refund": {
        const status = form.get("status") === "FULLY_REFUNDED" ? "FULLY_REFUNDED" : "PARTIALLY_REFUNDED";
        await setRefundStatus(ctx, id, status);
        return { ok: status === "FULLY_REFUNDED" ? "Recorded as fully refunded." : "Recorded as partly refunded.", intent, problem: null };
      }
      default:
        throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    }
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    return data({ ok: null, intent, problem, values }, { status: problem.status ?? 400 });
  }
}

export default function ConsoleOrder({ loaderData, actionData }: Route.ComponentProps) {
  const { order } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canWrite = !!user?.permissions.includes("orders.write");
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : "";
  const result = actionData;
  const problemFor = (intent: Intent) => (result?.intent === intent ? result.problem : null);
  const values = result && "values" in result ? result.values : {};

  const toShip = order.fulfilLines.filter((l) => l.quantity > l.shipped);
  const canceled = order.status === "CANCELED";
  const canMarkPaid = !canceled && ["NOT_PAID", "PENDING", "PARTIALLY_PAID"].includes(order.paymentStatus);
  const canFulfil = !canceled && toShip.length > 0;
  const canCancel = !canceled && order.fulfillmentStatus === "NOT_FULFILLED";
  const canRefund = ["PAID", "PARTIALLY_PAID", "PARTIALLY_REFUNDED"].includes(order.paymentStatus);

  // Which action forms are on the page (a refused action whose form is not, e.g. for lack of permission, is reported
  // on its own).
  const shown: Record<string, boolean> = {
    fulfil: canWrite && canFulfil,
    "mark-paid": canWrite && canMarkPaid,
    refund: canWrite && canRefund,
    cancel: canWrite && canCancel,
  };

  // Field errors of the fulfil form: lineItems[i] is the i-th line that had a quantity, in the form's order.
  const fulfilProblem = problemFor("fulfil");
  const sentLines = toShip.filter((l) => (values[`qty:${l.id}`] ?? "").trim() !== "" && Number(values[`qty:${l.id}`]) !== 0);
  const lineError = (lineId: string) => {
    const i = sentLines.findIndex((l) => l.id === lineId);
    return i >= 0 ? (fulfilProblem?.fields[`lineItems[${i}].quantity`] ?? fulfilProblem?.fields[`lineItems[${i}]`]) : undefined;
  };
  const fieldIds: Record<string, string> = {
    "trackingInfo.trackingLink": "fulfil-link",
    "trackingInfo.trackingNumber": "fulfil-number",
    "trackingInfo.shippingProvider": "fulfil-carrier",
  };
  sentLines.forEach((l, i) => (fieldIds[`lineItems[${i}].quantity`] = `fulfil-qty-${l.id}`));

  return (
    <>
      <p>
        <Link to="/console/orders">← Orders</Link>
      </p>
      <h1>
        {`Order #${order.number}`} <OrderBadge status={order.paymentStatus} /> <OrderBadge status={order.fulfillmentStatus} />{" "}
        {canceled && <OrderBadge status="CANCELED" />}
      </h1>
      <p className="console-muted">Placed {dateText(order.placed)}</p>
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}

      <div className="order-layout">
        <div>
          <section className="order-panel" aria-labelledby="order-items">
            <h2 id="order-items">Items</h2>
            <div className="console-scroll">
              <table className="console-table">
                <thead>
                  <tr>
                    <th scope="col">Item</th>
                    <th scope="col">SKU</th>
                    <th scope="col" className="num">
                      Ordered
                    </th>
                    <th scope="col" className="num">
                      Shipped
                    </th>
                    <th scope="col" className="num">
                      Total
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {order.fulfilLines.map((l, i) => (
                    <tr key={l.id}>
                      <td>
                        {l.name}
                        {l.options.length > 0 && <div className="console-muted">{l.options.join(" · ")}</div>}
                      </td>
                      <td>{l.sku ?? "—"}</td>
                      <td className="num">{l.quantity}</td>
                      <td className="num">{l.shipped}</td>
                      <td className="num">{order.lines[i]?.total}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <table className="order-totals" aria-label="Totals">
              <tbody>
                <tr>
                  <th scope="row">Subtotal</th>
                  <td>{order.totals.subtotal}</td>
                </tr>
                {order.totals.discount && (
                  <tr>
                    <th scope="row">Discount{order.coupon ? ` (${order.coupon})` : ""}</th>
                    <td>−{order.totals.discount}</td>
                  </tr>
                )}
                <tr>
                  <th scope="row">Shipping{order.shippingTitle ? ` (${order.shippingTitle})` : ""}</th>
                  <td>{order.totals.shipping}</td>
                </tr>
                {order.fees && (
                  <tr>
                    <th scope="row">Fees</th>
                    <td>{order.fees}</td>
                  </tr>
                )}
                <tr>
                  <th scope="row">Tax</th>
                  <td>{order.totals.tax}</td>
                </tr>
                <tr className="total">
                  <th scope="row">Total</th>
                  <td>{order.totals.total}</td>
                </tr>
              </tbody>
            </table>
          </section>

          {order.shipments.length > 0 && (
            <section className="order-panel">
              <Shipments heading="h2" shipments={order.shipments} />
            </section>
          )}

          <section className="order-panel" aria-labelledby="order-history">
            <h2 id="order-history">History</h2>
            <ol className="order-activities">
              {order.activities.map((a) => (
                <li key={a.id}>
                  <time dateTime={a.date}>{new Date(a.date).toISOString().slice(0, 16).replace("T", " ")} UTC</time>
                  {a.text}
                </li>
              ))}
            </ol>
          </section>
        </div>

        <div>
          <section className="order-panel" aria-labelledby="order-buyer">
            <h2 id="order-buyer">Buyer</h2>
            <dl>
              <dt>Name</dt>
              <dd>{order.buyerName || "—"}</dd>
              <dt>Email</dt>
              <dd>{order.email ? <a href={`mailto:${order.email}`}>{order.email}</a> : "—"}</dd>
              {order.phone && (
                <>
                  <dt>Phone</dt>
                  <dd>{order.phone}</dd>
                </>
              )}
              <dt>Account</dt>
              <dd>{order.memberId ? "Member" : "Guest"}</dd>
              <dt>Payment</dt>
              <dd>{order.offline ? "Offline (pay later)" : "Online"}</dd>
            </dl>
            {order.shipTo.length > 0 && (
              <>
                <h3>Ship to</h3>
                <address>
                  {order.shipTo.map((l) => (
                    <span key={l}>
                      {l}
                      <br />
                    </span>
                  ))}
                </address>
              </>
            )}
            {order.billTo.length > 0 && (
              <>
                <h3>Bill to</h3>
                <address>
                  {order.billTo.map((l) => (
                    <span key={l}>
                      {l}
                      <br />
                    </span>
                  ))}
                </address>
              </>
            )}
          </section>

          {canWrite && (canMarkPaid || canFulfil || canCancel || canRefund) && (
            <section className="order-panel order-actions" aria-labelledby="order-actions">
              <h2 id="order-actions">Actions</h2>
              {canFulfil && (
                <Form method="post" aria-labelledby="fulfil-heading" noValidate>
                  <h3 id="fulfil-heading">Ship items</h3>
                  <ErrorSummary problem={fulfilProblem} fieldIds={fieldIds} />
                  <input type="hidden" name="intent" value="fulfil" />
                  {toShip.map((l) => {
                    const err = lineError(l.id);
                    const left = l.quantity - l.shipped;
                    return (
                      <div className="console-field" key={l.id}>
                        <label htmlFor={`fulfil-qty-${l.id}`}>
                          {l.name} <span className="console-muted">({left} to ship)</span>
                        </label>
                        <input
                          id={`fulfil-qty-${l.id}`}
                          className="order-qty"
                          type="number"
                          name={`qty:${l.id}`}
                          min={0}
                          max={left}
                          defaultValue={values[`qty:${l.id}`] ?? String(left)}
                          aria-invalid={err ? true : undefined}
                          aria-describedby={err ? `fulfil-qty-${l.id}-error` : undefined}
                        />
                        <FieldError id={`fulfil-qty-${l.id}-error`} message={err} />
                      </div>
                    );
                  })}
                  {(
                    [
                      ["shippingProvider", "fulfil-carrier", "Carrier", "text", "e.g. UPS"],
                      ["trackingNumber", "fulfil-number", "Tracking number", "text", ""],
                      ["trackingLink", "fulfil-link", "Tracking link", "url", "https://…"],
                    ] as const
                  ).map(([name, fid, label, type, placeholder]) => {
                    const err = fulfilProblem?.fields[`trackingInfo.${name}`];
                    return (
                      <div className="console-field" key={name}>
                        <label htmlFor={fid}>{label}</label>
                        <input
                          id={fid}
                          name={name}
                          type={type}
                          maxLength={name === "trackingLink" ? 2048 : 100}
                          placeholder={placeholder || undefined}
                          defaultValue={values[name] ?? ""}
                          aria-invalid={err ? true : undefined}
                          aria-describedby={err ? `${fid}-error` : undefined}
                        />
                        <FieldError id={`${fid}-error`} message={err} />
                      </div>
                    );
                  })}
                  <button type="submit" className="console-button primary" disabled={busy === "fulfil"}>
                    {busy === "fulfil" ? "Shipping…" : "Mark as shipped"}
                  </button>
                </Form>
              )}
              {canMarkPaid && (
                <Form method="post">
                  <ErrorSummary problem={problemFor("mark-paid")} />
                  <input type="hidden" name="intent" value="mark-paid" />
                  <button type="submit" className="console-button" disabled={busy === "mark-paid"}>
                    Mark as paid
                  </button>
                </Form>
              )}
              {canRefund && (
                <Form method="post">
                  <ErrorSummary problem={problemFor("refund")} />
                  <input type="hidden" name="intent" value="refund" />
                  <fieldset>
                    <legend>Refund made outside the store</legend>
                    <label className="console-check">
                      <input type="radio" name="status" value="PARTIALLY_REFUNDED" defaultChecked /> Partly refunded
                    </label>
                    <label className="console-check">
                      <input type="radio" name="status" value="FULLY_REFUNDED" /> Fully refunded
                    </label>
                  </fieldset>
                  <button type="submit" className="console-button" disabled={busy === "refund"}>
                    Record refund
                  </button>
                </Form>
              )}
              {canCancel && (
                <AskFirstForm question={`Cancel order #${order.number}? This cannot be undone.`}>
                  <ErrorSummary problem={problemFor("cancel")} />
                  <input type="hidden" name="intent" value="cancel" />
                  <label className="console-check">
                    <input type="checkbox" name="restock" defaultChecked /> Put the items back in stock
                  </label>
                  <button type="submit" className="console-button danger" disabled={busy === "cancel"}>
                    Cancel order
                  </button>
                </AskFirstForm>
              )}
            </section>
          )}
          {!canWrite && (
            <p className="console-muted">
              You can look at this order; changing it needs the permission to “Mark orders paid, fulfil, cancel and refund” from the store owner.
            </p>
          )}
          {result?.problem && !shown[result.intent] && <ErrorSummary problem={result.problem} />}
        </div>
      </div>
    </>
  );
}
