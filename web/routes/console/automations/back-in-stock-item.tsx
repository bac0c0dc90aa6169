import { data, Link, useNavigation } from "react-router";
import { backInStockItem, reportItemBackInStock } from "#worker/automations";
import { AutomationHead, dateTimeText, Facts, ListBody, pageOf, pagesOf, StatusBadge } from "#web/components/console/automation-lists";
import { itemText, StockNow } from "#web/components/console/back-in-stock";
import { intentAction } from "#web/components/console/intent-action.server";
import { Pager } from "#web/components/console/pager";
import { PostButton } from "#web/components/console/post-button";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleMeta } from "#web/components/console/title";
import { useCan } from "#web/components/ui/page";
import { DataTable } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/back-in-stock-item";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.item ? `Back in stock: ${itemText(d.item)} — Console` : "Back in stock — Console",
);

const PAGE_SIZE = 50;

/** The item named by the URL (productId, and variantId unless the requests are about the product as a whole). */
function itemOf(url: URL): { productId: string; variantId: string } {
  const productId = (url.searchParams.get("productId") ?? "").trim();
  const variantId = (url.searchParams.get("variantId") ?? "").trim();
  if (!productId || productId.length > 100 || variantId.length > 100) throw data("Name the item with productId (and variantId).", { status: 400 });
  return { productId, variantId };
}

/** One item's counts, product and a page of its requests: one batch (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const url = new URL(request.url);
  const page = pageOf(url);
  const result = await orRefuse(backInStockItem(context.services, itemOf(url), { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE }));
  return { ...result, page, pages: pagesOf(result.total, PAGE_SIZE) };
});

/** "Report back in stock": emails the item's waiting shoppers now (automations.manage), and says how it went. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const item = itemOf(new URL(request.url));
  return intentAction(await request.formData(), ["report"], async () => {
    const { sent, failed, held } = await reportItemBackInStock(context.services, item);
    const parts = [
      sent === 0 && failed === 0 && held === 0
        ? "No one was waiting: nobody was emailed."
        : `Emailed ${sent} ${sent === 1 ? "shopper" : "shoppers"}.`,
      failed > 0 ? `${failed} could not be emailed (the reason is on each request).` : "",
      held > 0 ? `${held} will be sent when the email service's retries go through.` : "",
    ];
    return parts.filter(Boolean).join(" ");
  });
});

type Request = Route.ComponentProps["loaderData"]["requests"][number];

export default function ConsoleBackInStockItem({ loaderData, actionData }: Route.ComponentProps) {
  const { item, requests, total, page, pages } = loaderData;
  const busy = useNavigation().state === "submitting";
  const mayReport = useCan("automations.manage");
  const back = (
    <>
      <Link to="/console/automations/back-in-stock">← All items</Link>
      {item.productName !== null && (
        <>
          {" · "}
          <Link to={`/console/inventory/${item.productId}`}>Stock of this product</Link>
        </>
      )}
    </>
  );
  return (
    <>
      <AutomationHead title={`Back in stock: ${itemText(item)}`} back={back} result={actionData} />
      <Facts
        facts={[
          ["Waiting", item.waiting],
          item.processing > 0 && ["Being sent", item.processing],
          ["Notified", item.notified],
          ["Failed", item.failed],
          ["Stock now", <StockNow key="stock" item={item} />],
        ]}
      />
      {mayReport ? (
        <div className="console-actions automation-retry">
          <PostButton intent="report" primary disabled={busy}>
            {busy ? "Emailing…" : "Report back in stock"}
          </PostButton>
          <span className="console-muted">
            {item.variantId
              ? "Emails everyone waiting for this variant, and those waiting for any variant of the product, now."
              : "Emails everyone waiting for this product (any variant) now."}
          </span>
        </div>
      ) : (
        <p className="console-muted">Reporting an item back in stock needs the automations permission.</p>
      )}
      <h2>Requests</h2>
      <ListBody shown={requests.length} total={total} what="requests" empty="No requests for this item.">
        <DataTable<Request>
          caption={`Requests for ${itemText(item)}, newest first (${total})`}
          rows={requests}
          rowKey={(r) => r.id}
          columns={[
            { header: "Email", rowHeader: true, cell: (r) => r.email },
            {
              header: "Status",
              cell: (r) => (
                <>
                  <StatusBadge status={r.status} />
                  {r.failureReason && <div className="automation-error">{r.failureReason}</div>}
                </>
              ),
            },
            { header: "Asked", cell: (r) => dateTimeText(r.createdDate) },
            { header: "Last change", cell: (r) => dateTimeText(r.updatedDate) },
          ]}
        />
        <Pager page={page} pages={pages} label="Pages of requests" />
      </ListBody>
    </>
  );
}
