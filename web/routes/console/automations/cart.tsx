import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { addAbandonedCheckoutActivity, addActivityRequest, getAbandonedCheckoutWithEmails } from "#worker/automations";
import { parseWith } from "#worker/platform/validation";
import { CartStatusBadge, contactOf, itemsCount, notSentReason } from "#web/components/console/abandoned-carts";
import { dateTimeText } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { orRefuse } from "#web/components/console/problem.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import "#web/styles/console-abandoned-carts.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/cart";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Abandoned cart — Automations — Console") }];
}

export const headers = () => consoleHeaders;

/** One abandoned cart with its activities and recovery emails: one batch (2 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  return orRefuse(getAbandonedCheckoutWithEmails(context.services, params.id));
}

/** "Add a custom activity": what the merchant did about the cart (automations.manage). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const form = await request.formData();
  const values = { title: String(form.get("title") ?? "").slice(0, 400), description: String(form.get("description") ?? "").slice(0, 4000) };
  try {
    const req = parseWith(addActivityRequest, {
      customActivity: { title: values.title, ...(values.description.trim() ? { description: values.description } : {}) },
    });
    await addAbandonedCheckoutActivity(context.services, params.id, req);
    return { ok: "Activity added.", problem: null as Problem | null, values: { title: "", description: "" } };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
}

type Loaded = Route.ComponentProps["loaderData"];
type Activity = Loaded["abandonedCheckout"]["activities"][number];

interface TimelineEntry {
  at: string;
  title: string;
  body?: React.ReactNode;
}

const str = (v: unknown) => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");

/** The cart's story in order: abandoned, each activity, recovered with its revenue. */
function timelineOf(cart: Loaded["abandonedCheckout"], emails: Loaded["recoveryEmails"]): TimelineEntry[] {
  const subjectOf = new Map(emails.filter((e) => e.emailId).map((e) => [e.emailId!, e]));
  const emailLink = (emailId: string) => {
    const sent = subjectOf.get(emailId);
    return (
      <p>
        {sent?.subject && (
          <>
            Subject: &ldquo;{sent.subject}&rdquo;
            {sent.to ? ` to ${sent.to}` : ""}.{" "}
          </>
        )}
        <Link to={`/console/automations/emails/${emailId}`}>View the email</Link>
      </p>
    );
  };
  const entry = (a: Activity): TimelineEntry => {
    const d = (a.details ?? {}) as Record<string, unknown>;
    const step = str(d.step);
    switch (a.type) {
      case "SCHEDULED":
        return { at: a.createdDate, title: `Email ${step} ${d.rescheduled ? "rescheduled" : "scheduled"} for ${dateTimeText(str(d.dueDate))}` };
      case "EMAIL_SENT":
        return {
          at: a.createdDate,
          title: `Email ${step} sent${d.to ? ` to ${str(d.to)}` : ""}`,
          body: d.emailId ? emailLink(str(d.emailId)) : undefined,
        };
      case "EMAIL_NOT_SENT":
        return {
          at: a.createdDate,
          title: `Email ${step} not sent: ${notSentReason(a.reason)}`,
          body: (
            <>
              {d.error ? <p className="automation-error">{str(d.error)}</p> : null}
              {d.emailId ? emailLink(str(d.emailId)) : null}
            </>
          ),
        };
      case "TASK_CREATED":
        return { at: a.createdDate, title: "High-value cart: a task was opened", body: <Link to="/console/automations/tasks">See the tasks</Link> };
      case "NOTIFICATION_SENT":
        return { at: a.createdDate, title: "Notification sent" };
      default:
        return {
          at: a.createdDate,
          title: str(d.title) || "Custom activity",
          body: (
            <>
              {d.description ? <p className="carts-activity-text">{str(d.description)}</p> : null}
              <p className="console-muted">
                {a.actor?.type === "ADMIN" ? "Added by staff" : a.actor ? `Added by ${a.actor.type.toLowerCase()}` : "Added"}
              </p>
            </>
          ),
        };
    }
  };
  const entries: TimelineEntry[] = [
    { at: cart.abandonTime, title: `Cart abandoned with ${cart.totalPrice.formattedAmount}` },
    ...cart.activities.map(entry),
  ];
  if (cart.status === "RECOVERED" && cart.checkoutRecoveredDate) {
    entries.push({
      at: cart.checkoutRecoveredDate,
      title: `Recovered: bought for ${cart.recoveredRevenue?.formattedAmount ?? cart.totalPrice.formattedAmount}`,
      body: cart.recoveredOrderId ? <Link to={`/console/orders/${cart.recoveredOrderId}`}>See the order</Link> : undefined,
    });
  }
  // Stable: entries of the same moment keep the order they were recorded in.
  return entries
    .map((e, i) => ({ e, i }))
    .sort((a, b) => (a.e.at < b.e.at ? -1 : a.e.at > b.e.at ? 1 : a.i - b.i))
    .map((x) => x.e);
}

interface Line {
  id?: string;
  quantity?: number;
  productName?: { original?: string };
  price?: { formattedAmount?: string };
  lineItemPrice?: { formattedAmount?: string };
  descriptionLines?: { name?: { original?: string }; plainText?: { original?: string }; colorInfo?: { original?: string } }[];
}

export default function ConsoleAbandonedCart({ loaderData, actionData }: Route.ComponentProps) {
  const { abandonedCheckout: cart, recoveryEmails } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const busy = useNavigation().state === "submitting";
  const lines = cart.lineItems as Line[];
  const problem = actionData?.problem;
  const titleError = problem?.fields["customActivity.title"];
  const descriptionError = problem?.fields["customActivity.description"];
  const timeline = timelineOf(cart, recoveryEmails);
  return (
    <>
      <h1>Abandoned cart</h1>
      <AutomationsNav />
      <p>
        <Link to="/console/automations">← All abandoned carts</Link>
      </p>
      <dl className="automation-facts">
        <div>
          <dt>Contact</dt>
          <dd>{contactOf(cart)}</dd>
        </div>
        <div>
          <dt>Status</dt>
          <dd>
            <CartStatusBadge status={cart.status} />
          </dd>
        </div>
        <div>
          <dt>Abandoned</dt>
          <dd>{dateTimeText(cart.abandonTime)}</dd>
        </div>
        <div>
          <dt>Shopper</dt>
          <dd>{"memberId" in cart.buyerInfo && cart.buyerInfo.memberId ? "A member" : "A visitor"}</dd>
        </div>
        {cart.recoveredRevenue && (
          <div>
            <dt>Recovered revenue</dt>
            <dd>{cart.recoveredRevenue.formattedAmount}</dd>
          </div>
        )}
        <div className="automation-facts-wide">
          <dt>Recovery link</dt>
          <dd>
            <code>{cart.checkoutUrl}</code>
          </dd>
        </div>
      </dl>

      <h2>Items</h2>
      <div className="console-scroll">
        <table className="console-table">
          <caption className="visually-hidden">Items in the cart</caption>
          <thead>
            <tr>
              <th scope="col">Item</th>
              <th scope="col" className="num">
                Price
              </th>
              <th scope="col" className="num">
                Quantity
              </th>
              <th scope="col" className="num">
                Total
              </th>
            </tr>
          </thead>
          <tbody>
            {lines.map((l, i) => {
              const options = (l.descriptionLines ?? [])
                .map((d) => `${d.name?.original}: ${d.plainText?.original ?? d.colorInfo?.original}`)
                .join(", ");
              return (
                <tr key={l.id ?? i}>
                  <th scope="row">
                    {l.productName?.original ?? "Item"}
                    {options && <div className="console-muted">{options}</div>}
                  </th>
                  <td className="num">{l.price?.formattedAmount ?? "—"}</td>
                  <td className="num">{l.quantity ?? 1}</td>
                  <td className="num">{l.lineItemPrice?.formattedAmount ?? "—"}</td>
                </tr>
              );
            })}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row" colSpan={2}>
                Subtotal
              </th>
              <td className="num">{itemsCount(cart.lineItems)}</td>
              <td className="num">{cart.subtotalPrice.formattedAmount}</td>
            </tr>
            <tr>
              <th scope="row" colSpan={3}>
                Total
              </th>
              <td className="num">
                <strong>{cart.totalPrice.formattedAmount}</strong>
              </td>
            </tr>
          </tfoot>
        </table>
      </div>

      <h2>Activity</h2>
      <ol className="carts-timeline">
        {timeline.map((e, i) => (
          <li key={i}>
            <p className="carts-timeline-head">
              <strong>{e.title}</strong> <span className="console-muted">{dateTimeText(e.at)}</span>
            </p>
            {e.body}
          </li>
        ))}
      </ol>

      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      {user?.permissions.includes("automations.manage") && (
        <Form
          method="post"
          className="console-form carts-activity-form"
          aria-labelledby="carts-activity-title"
          noValidate
          key={actionData?.ok ? cart.activities.length : "form"}
        >
          <h2 id="carts-activity-title">Add a custom activity</h2>
          <ErrorSummary
            problem={problem}
            fieldIds={{ "customActivity.title": "activity-title", "customActivity.description": "activity-description" }}
          />
          <div className="console-field">
            <label htmlFor="activity-title">What happened</label>
            <input
              id="activity-title"
              name="title"
              maxLength={200}
              defaultValue={actionData?.values.title}
              aria-invalid={titleError ? true : undefined}
              aria-describedby={`activity-title-hint${titleError ? " activity-title-error" : ""}`}
            />
            <p className="hint" id="activity-title-hint">
              For example: &ldquo;Called the shopper, sent a 10% coupon&rdquo;.
            </p>
            <FieldError id="activity-title-error" message={titleError} />
          </div>
          <div className="console-field">
            <label htmlFor="activity-description">Details (optional)</label>
            <textarea
              id="activity-description"
              name="description"
              rows={3}
              maxLength={2000}
              defaultValue={actionData?.values.description}
              aria-invalid={descriptionError ? true : undefined}
              aria-describedby={descriptionError ? "activity-description-error" : undefined}
            />
            <FieldError id="activity-description-error" message={descriptionError} />
          </div>
          <button type="submit" className="console-button primary" disabled={busy}>
            Add activity
          </button>
        </Form>
      )}
    </>
  );
}
