import { useRouteLoaderData } from "react-router";
import { dashboardReport } from "#worker/reports";
import { BarChart, Figures, longDate, shortDate } from "#web/components/console/dashboard-charts";
import { consoleMeta } from "#web/components/console/title";
import { Notice, PageHead } from "#web/components/ui/page";
import { counted as count } from "#web/components/ui/table";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-dashboard.css";
import type { loader as layoutLoader } from "./layout";
import type { Route } from "./+types/home";

export const meta = consoleMeta("Dashboard — Console");

export const headers = () => consoleHeaders;

/** The store's figures: one D1 batch of aggregates (2 round trips with the session). */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  return { report: await dashboardReport(context.services) };
});

/** How long an event has waited, in the largest whole unit that fits. */
function waitedFor(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds / 3600)} h`;
}

export default function ConsoleHome({ loaderData }: Route.ComponentProps) {
  const { report: r } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const currencyAxis = (v: number) =>
    new Intl.NumberFormat("en-US", { style: "currency", currency: r.currency, notation: "compact", maximumFractionDigits: 1 }).format(v);
  const salesTotal30 = r.salesByDay.reduce((a, d) => a + d.sales, 0);
  const bestDay = r.salesByDay.reduce((best, d) => (d.sales > best.sales ? d : best), r.salesByDay[0]);
  const digits = new Intl.NumberFormat("en-US", { style: "currency", currency: r.currency }).resolvedOptions().maximumFractionDigits ?? 2;
  const weeksWithCarts = r.recoveryByWeek.filter((w) => w.abandoned > 0);
  return (
    <>
      <PageHead title="Dashboard" />
      <Notice
        text={
          user?.role === "STAFF" && user.permissions.length === 0
            ? "You can look at everything here, but the store owner has not given you any permission to make changes yet."
            : null
        }
      />
      <p className="console-muted">
        {r.timeZoneSource === "store"
          ? `Days are counted in the store's time zone, ${r.timeZone}. Today is ${longDate(r.today.date)}.`
          : `Days are counted in UTC (the store has no time zone set). Today is ${longDate(r.today.date)}.`}
      </p>

      <section aria-labelledby="dash-sales">
        <h2 id="dash-sales">Sales</h2>
        <Figures
          label="Sales figures"
          figures={[
            { label: "Sales today", value: r.today.sales.formatted, to: "/console/orders" },
            { label: "Gross sales today", value: r.today.gross.formatted, to: "/console/orders" },
            { label: "Refunds today", value: r.today.refunds.formatted, to: "/console/orders" },
            { label: "Orders today", value: String(r.today.orders), to: "/console/orders" },
            { label: "Average order today", value: r.today.averageOrderValue.formatted, to: "/console/orders" },
            { label: "Sales, last 30 days", value: r.last30Days.sales.formatted, to: "/console/orders" },
            { label: "Gross sales, last 30 days", value: r.last30Days.gross.formatted, to: "/console/orders" },
            { label: "Refunds, last 30 days", value: r.last30Days.refunds.formatted, to: "/console/orders" },
            { label: "Orders, last 30 days", value: String(r.last30Days.orders), to: "/console/orders" },
            { label: "Average order, last 30 days", value: r.last30Days.averageOrderValue.formatted, to: "/console/orders" },
          ]}
        />
        <BarChart
          title="Sales per day, last 30 days"
          description={
            salesTotal30 === 0
              ? `No sales from ${longDate(r.last30Days.from)} to ${longDate(r.last30Days.to)}.`
              : `${r.last30Days.sales.formatted} after ${r.last30Days.refunds.formatted} of refunds, from ${count(r.last30Days.orders, "order", "orders")} between ${longDate(r.last30Days.from)} and ${longDate(r.last30Days.to)}; the best day was ${longDate(bestDay.date)} with ${bestDay.formatted}.`
          }
          data={r.salesByDay.map((d) => ({
            label: shortDate(d.date),
            longLabel: longDate(d.date),
            value: d.sales / 10 ** digits,
            formatted: `${d.formatted} (${count(d.orders, "order", "orders")})${d.refunds ? `: ${d.grossFormatted} gross less ${d.refundsFormatted} refunded` : ""}`,
          }))}
          formatAxis={currencyAxis}
          labelEvery={5}
          tableHeads={["Day", "Sales after refunds"]}
        />
      </section>

      <section aria-labelledby="dash-carts">
        <h2 id="dash-carts">Abandoned carts, last 30 days</h2>
        <Figures
          label="Abandoned cart figures"
          figures={[
            { label: "Abandoned carts", value: String(r.abandonedCarts.abandoned), to: "/console/automations?status=ABANDONED" },
            { label: "Recovered carts", value: String(r.abandonedCarts.recovered), to: "/console/automations?status=RECOVERED" },
            { label: "Recovered revenue", value: r.abandonedCarts.recoveredRevenue.formatted, to: "/console/automations?status=RECOVERED" },
            { label: "Recovery rate", value: `${r.abandonedCarts.recoveryRate}%`, to: "/console/automations" },
          ]}
        />
        <BarChart
          title="Recovery rate per week, last 8 weeks"
          description={
            weeksWithCarts.length === 0
              ? "No carts were abandoned in the last 8 weeks."
              : `Share of each week's abandoned carts that were recovered. ${weeksWithCarts.map((w) => `${shortDate(w.start)} to ${shortDate(w.end)}: ${w.rate}% (${w.recovered} of ${w.abandoned})`).join("; ")}. Weeks not named had no abandoned carts.`
          }
          data={r.recoveryByWeek.map((w) => ({
            label: shortDate(w.start),
            longLabel: `${longDate(w.start)} to ${longDate(w.end)}`,
            value: w.rate,
            formatted: w.abandoned ? `${w.rate}% (${w.recovered} of ${w.abandoned})` : "no abandoned carts",
          }))}
          formatAxis={(v) => `${v}%`}
          maxValue={100}
          tableHeads={["Week", "Recovered"]}
        />
      </section>

      <section aria-labelledby="dash-attention">
        <h2 id="dash-attention">Needs attention</h2>
        <Figures
          label="Things to look at"
          figures={[
            { label: "Back-in-stock requests waiting", value: String(r.backInStock.waiting), to: "/console/automations/back-in-stock" },
            { label: "Back-in-stock requests notified", value: String(r.backInStock.notified), to: "/console/automations/back-in-stock" },
            { label: "Low-stock items", value: String(r.lowStockItems), to: "/console/inventory", attention: r.lowStockItems > 0 },
            { label: "Open tasks", value: String(r.openTasks), to: "/console/automations/tasks", attention: r.openTasks > 0 },
            { label: "Failed webhook deliveries", value: String(r.failedDeliveries), to: "/console/webhooks", attention: r.failedDeliveries > 0 },
            { label: "Dead events", value: String(r.deadEvents), to: "/console/events", attention: r.deadEvents > 0 },
            {
              label: "Events waiting to be processed",
              value: r.eventLag.waiting ? `${r.eventLag.waiting} (oldest ${waitedFor(r.eventLag.oldestWaitingSeconds)})` : "0",
              to: "/console/events",
              attention: r.eventLag.oldestWaitingSeconds > r.eventLag.alertAfterSeconds,
            },
          ]}
        />
      </section>
    </>
  );
}
