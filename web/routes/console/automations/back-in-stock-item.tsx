import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { backInStockItem, reportItemBackInStock } from "#worker/automations";
import { dateTimeText, pageOf, PastTheEnd, StatusBadge } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { itemText, StockNow } from "#web/components/console/back-in-stock";
import { ErrorSummary } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { orRefuse } from "#web/components/console/problem.server";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/back-in-stock-item";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.item ? `Back in stock: ${itemText(d.item)} — Console` : "Back in stock — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 50;

/** The item named by the URL (productId, and variantId unless the requests are about the product as a whole). */
function itemOf(url: URL): { productId: string; variantId: string } {
  const productId = (url.searchParams.get("productId") ?? "").trim();
  const variantId = (url.searchParams.get("variantId") ?? "").trim();
  if (!productId || productId.length > 100 || variantId.length > 100) throw data("Name the item with productId (and variantId).", { status: 400 });
  return { productId, variantId };
}

/** One item's counts, product and a page of its requests: one batch (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageOf(url);
  const result = await orRefuse(backInStockItem(context.services, itemOf(url), { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }));
  return { ...result, page, pages: Math.max(1, Math.ceil(result.total / PAGE_SIZE)) };
}

/** "Report back in stock": emails the item's waiting shoppers now (automations.manage), and says how it went. */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const item = itemOf(new URL(request.url));
  const form = await request.formData();
  if (form.get("intent") !== "report")
    return data({ ok: null, problem: { message: "Nothing was done: unknown action.", fields: {} } }, { status: 400 });
  try {
    const { sent, failed, held } = await reportItemBackInStock(context.services, item);
    const parts = [
      sent === 0 && failed === 0 && held === 0
        ? "No one was waiting: nobody was emailed."
        : `Emailed ${sent} ${sent === 1 ? "shopper" : "shoppers"}.`,
      failed > 0 ? `${failed} could not be emailed (the reason is on each request).` : "",
      held > 0 ? `${held} will be sent when the email service's retries go through.` : "",
    ];
    return { ok: parts.filter(Boolean).join(" "), problem: null };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem }, { status: problem.status ?? 400 });
  }
}

export default function ConsoleBackInStockItem({ loaderData, actionData }: Route.ComponentProps) {
  const { item, requests, total, page, pages } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const busy = useNavigation().state === "submitting";
  const mayReport = !!user?.permissions.includes("automations.manage");
  return (
    <>
      <h1>Back in stock: {itemText(item)}</h1>
      <AutomationsNav />
      <p>
        <Link to="/console/automations/back-in-stock">← All items</Link>
        {item.productName !== null && (
          <>
            {" · "}
            <Link to={`/console/inventory/${item.productId}`}>Stock of this product</Link>
          </>
        )}
      </p>
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      <ErrorSummary problem={actionData?.problem} />
      <dl className="automation-facts">
        <div>
          <dt>Waiting</dt>
          <dd>{item.waiting}</dd>
        </div>
        {item.processing > 0 && (
          <div>
            <dt>Being sent</dt>
            <dd>{item.processing}</dd>
          </div>
        )}
        <div>
          <dt>Notified</dt>
          <dd>{item.notified}</dd>
        </div>
        <div>
          <dt>Failed</dt>
          <dd>{item.failed}</dd>
        </div>
        <div>
          <dt>Stock now</dt>
          <dd>
            <StockNow item={item} />
          </dd>
        </div>
      </dl>
      {mayReport ? (
        <Form method="post" className="console-actions automation-retry">
          <input type="hidden" name="intent" value="report" />
          <button type="submit" className="console-button primary" disabled={busy}>
            {busy ? "Emailing…" : "Report back in stock"}
          </button>
          <span className="console-muted">
            {item.variantId
              ? "Emails everyone waiting for this variant, and those waiting for any variant of the product, now."
              : "Emails everyone waiting for this product (any variant) now."}
          </span>
        </Form>
      ) : (
        <p className="console-muted">Reporting an item back in stock needs the automations permission.</p>
      )}
      <h2>Requests</h2>
      {requests.length === 0 && total > 0 ? (
        <PastTheEnd total={total} what="requests" />
      ) : requests.length === 0 ? (
        <p className="console-muted">No requests for this item.</p>
      ) : (
        <>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">{`Requests for ${itemText(item)}, newest first (${total})`}</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Status</th>
                  <th scope="col">Asked</th>
                  <th scope="col">Last change</th>
                </tr>
              </thead>
              <tbody>
                {requests.map((r) => (
                  <tr key={r.id}>
                    <th scope="row">{r.email}</th>
                    <td>
                      <StatusBadge status={r.status} />
                      {r.failureReason && <div className="automation-error">{r.failureReason}</div>}
                    </td>
                    <td>{dateTimeText(r.createdDate)}</td>
                    <td>{dateTimeText(r.updatedDate)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of requests" />
        </>
      )}
    </>
  );
}
