import { Link } from "react-router";
import { backInStockByItem } from "#worker/automations";
import { AutomationHead, dateTimeText, ListBody, pageOf, pagesOf } from "#web/components/console/automation-lists";
import { BackInStockItemName, backInStockItemPath, StockNow } from "#web/components/console/back-in-stock";
import { Pager } from "#web/components/console/pager";
import { consoleMeta } from "#web/components/console/title";
import { DataTable, ListStatus } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/back-in-stock";

export const meta = consoleMeta("Back in stock — Automations — Console");

const PAGE_SIZE = 50;

/** Requests grouped by item, most waiting first, counted in SQL: one batch (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const page = pageOf(new URL(request.url));
  const { items, total } = await backInStockByItem(context.services, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return { items, total, page, pages: pagesOf(total, PAGE_SIZE) };
});

type Item = Route.ComponentProps["loaderData"]["items"][number];

export default function ConsoleBackInStock({ loaderData }: Route.ComponentProps) {
  const { items, total, page, pages } = loaderData;
  return (
    <>
      <AutomationHead
        title="Back in stock"
        intro="Shoppers who asked to hear when a sold-out item is back. They are emailed on their own when its stock comes back; open an item to email them now."
      />
      <ListBody shown={items.length} total={total} what="items" empty="No requests yet. Shoppers ask from a sold-out product’s page.">
        <ListStatus>{`${total} ${total === 1 ? "item has" : "items have"} requests.`}</ListStatus>
        <DataTable<Item>
          caption="Back-in-stock requests by item, most waiting first"
          rows={items}
          rowKey={(i) => `${i.productId}/${i.variantId}`}
          columns={[
            {
              header: "Item",
              rowHeader: true,
              cell: (i) => (
                <Link to={backInStockItemPath(i)} prefetch="intent">
                  <BackInStockItemName item={i} />
                </Link>
              ),
            },
            {
              header: "Waiting",
              num: true,
              cell: (i) => (
                <>
                  {i.waiting}
                  {i.processing > 0 && <div className="console-muted">{`+${i.processing} sending`}</div>}
                </>
              ),
            },
            { header: "Notified", num: true, cell: (i) => i.notified },
            { header: "Failed", num: true, cell: (i) => i.failed },
            { header: "Stock now", cell: (i) => <StockNow item={i} /> },
            { header: "Last request", cell: (i) => dateTimeText(i.lastRequested) },
          ]}
        />
        <Pager page={page} pages={pages} label="Pages of back-in-stock items" />
      </ListBody>
    </>
  );
}
