import { Link } from "react-router";
import { backInStockByItem } from "#worker/automations";
import { dateTimeText, pageOf, PastTheEnd } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { BackInStockItemName, backInStockItemPath, StockNow } from "#web/components/console/back-in-stock";
import { Pager } from "#web/components/console/pager";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/back-in-stock";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Back in stock — Automations — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 50;

/** Requests grouped by item, most waiting first, counted in SQL: one batch (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const page = pageOf(new URL(request.url));
  const { items, total } = await backInStockByItem(context.services, { limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return { items, total, page, pages: Math.max(1, Math.ceil(total / PAGE_SIZE)) };
}

export default function ConsoleBackInStock({ loaderData }: Route.ComponentProps) {
  const { items, total, page, pages } = loaderData;
  return (
    <>
      <h1>Back in stock</h1>
      <AutomationsNav />
      <p className="console-muted">
        Shoppers who asked to hear when a sold-out item is back. They are emailed on their own when its stock comes back; open an item to email them
        now.
      </p>
      {items.length === 0 && total > 0 ? (
        <PastTheEnd total={total} what="items" />
      ) : items.length === 0 ? (
        <p className="console-muted" role="status">
          No requests yet. Shoppers ask from a sold-out product&rsquo;s page.
        </p>
      ) : (
        <>
          <p className="console-muted" role="status">{`${total} ${total === 1 ? "item has" : "items have"} requests.`}</p>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">Back-in-stock requests by item, most waiting first</caption>
              <thead>
                <tr>
                  <th scope="col">Item</th>
                  <th scope="col" className="num">
                    Waiting
                  </th>
                  <th scope="col" className="num">
                    Notified
                  </th>
                  <th scope="col" className="num">
                    Failed
                  </th>
                  <th scope="col">Stock now</th>
                  <th scope="col">Last request</th>
                </tr>
              </thead>
              <tbody>
                {items.map((i) => (
                  <tr key={`${i.productId}/${i.variantId}`}>
                    <th scope="row">
                      <Link to={backInStockItemPath(i)} prefetch="intent">
                        <BackInStockItemName item={i} />
                      </Link>
                    </th>
                    <td className="num">
                      {i.waiting}
                      {i.processing > 0 && <div className="console-muted">{`+${i.processing} sending`}</div>}
                    </td>
                    <td className="num">{i.notified}</td>
                    <td className="num">{i.failed}</td>
                    <td>
                      <StockNow item={i} />
                    </td>
                    <td>{dateTimeText(i.lastRequested)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of back-in-stock items" />
        </>
      )}
    </>
  );
}
