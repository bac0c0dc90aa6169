import { eq } from "drizzle-orm";
import { abandonedByHourRead } from "#worker/automations";
import { backInStockCountsRead } from "#worker/automations";
import { openTasksCountRead } from "#worker/tasks";
import { attentionCountsRead, queueLagOf, type QueueLag } from "#worker/events";
import { config } from "#worker/platform/config";
import { lowStockCountRead } from "#worker/catalog";
import { refundsByHourRead, salesByHourRead } from "#worker/orders";
import { requireMerchant, type Ctx } from "#worker/platform/context";
import { formatMoney } from "#worker/platform/money";
import { settings } from "#worker/platform/tables";
import { STORE_SETTINGS_KEY } from "#worker/store";
import { now as clockNow } from "#worker/platform/clock";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The console's dashboard: the store's figures at a glance, all from SQL aggregates in ONE D1 batch (no rows are
 * loaded). Readable by any staff member.
 *
 * Days are the store's own: its time zone (settings "store", `timeZone`) when it has one, else UTC. The zone is read
 * in the same batch as the figures, so the time-based figures come grouped by UTC hour and are folded into local
 * days here. A zone whose offset is not a whole hour (e.g. +05:30) puts an hour that straddles its midnight on the
 * day that holds the hour's middle.
 */

/** Days of the sales chart and of the "last 30 days" figures (today included). */
const SALES_DAYS = 30;
/** Weeks of the recovery-rate chart (seven-day periods ending today). */
const RECOVERY_WEEKS = 8;

export interface DayFigures {
  /** YYYY-MM-DD in the store's time zone. */
  date: string;
  orders: number;
  /** Minor units: placed orders' totals (canceled ones are not sales). */
  gross: number;
  /** Minor units: money refunded that day, whichever day its order was placed. */
  refunds: number;
  /** Minor units: what the store kept, gross less refunds. */
  sales: number;
}

export interface WeekFigures {
  /** First and last day (YYYY-MM-DD) of the seven-day period. */
  start: string;
  end: string;
  abandoned: number;
  recovered: number;
  /** Percent of the period's abandoned carts recovered (0 when none was abandoned). */
  rate: number;
}

export interface Money {
  minor: number;
  formatted: string;
}

export interface DashboardReport {
  timeZone: string;
  /** "store": the store's setting; "default": UTC, because the store has none. */
  timeZoneSource: "store" | "default";
  currency: string;
  /** `sales` is net (gross less refunds); the average order is net sales over orders. */
  today: { date: string; gross: Money; refunds: Money; sales: Money; orders: number; averageOrderValue: Money };
  last30Days: { from: string; to: string; gross: Money; refunds: Money; sales: Money; orders: number; averageOrderValue: Money };
  /** `formatted` is the net sales. */
  salesByDay: (DayFigures & { formatted: string; grossFormatted: string; refundsFormatted: string })[];
  /** Carts abandoned in the last 30 days, those of them recovered, their revenue, and the rate. */
  abandonedCarts: { abandoned: number; recovered: number; recoveredRevenue: Money; recoveryRate: number };
  recoveryByWeek: WeekFigures[];
  backInStock: { waiting: number; notified: number };
  lowStockItems: number;
  openTasks: number;
  failedDeliveries: number;
  deadEvents: number;
  /** Events waiting to be processed, the oldest one's age, and the age past which it needs attention. */
  eventLag: QueueLag & { alertAfterSeconds: number };
}

/** A valid IANA zone name from the store's settings, or null. */
function zoneOf(value: unknown): string | null {
  const zone = (value as { timeZone?: unknown } | null)?.timeZone;
  if (typeof zone !== "string" || !zone || zone.length > 64) return null;
  try {
    new Intl.DateTimeFormat("en-CA", { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

/** YYYY-MM-DD of an instant in a zone ("en-CA" formats dates that way). */
function localDate(ms: number, zone: string): string {
  return new Intl.DateTimeFormat("en-CA", { timeZone: zone, year: "numeric", month: "2-digit", day: "2-digit" }).format(new Date(ms));
}

/** The calendar date `days` before a YYYY-MM-DD (calendar arithmetic, so daylight-saving changes do not matter). */
function daysBefore(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  return new Date(Date.UTC(y, m - 1, d - days)).toISOString().slice(0, 10);
}

const rate = (recovered: number, abandoned: number) => (abandoned ? Math.round((recovered / abandoned) * 1000) / 10 : 0);

type HourRows = { hour: string; orders?: number; total: number }[];

/** Gross, refunds and net per day of the last SALES_DAYS days, from the hourly sums. */
function salesDays(sales: HourRows, refunds: HourRows, dayOf: (hour: string) => string, today: string, currency: string) {
  const byDay = new Map<string, DayFigures>();
  const dayFor = (hour: string) => {
    const date = dayOf(hour);
    const d = byDay.get(date) ?? { date, orders: 0, gross: 0, refunds: 0, sales: 0 };
    byDay.set(date, d);
    return d;
  };
  for (const h of sales) {
    const d = dayFor(h.hour);
    d.orders += Number(h.orders);
    d.gross += Number(h.total);
  }
  for (const h of refunds) dayFor(h.hour).refunds += Number(h.total);
  const salesByDay = Array.from({ length: SALES_DAYS }, (_, i) => {
    const date = daysBefore(today, SALES_DAYS - 1 - i);
    const d = byDay.get(date) ?? { date, orders: 0, gross: 0, refunds: 0, sales: 0 };
    const net = d.gross - d.refunds;
    return {
      ...d,
      sales: net,
      formatted: formatMoney(net, currency),
      grossFormatted: formatMoney(d.gross, currency),
      refundsFormatted: formatMoney(d.refunds, currency),
    };
  });
  return salesByDay;
}

/** Abandoned and recovered carts over the last 30 days, and the recovery rate of each of the last weeks. */
function cartDays(
  abandoned: { hour: string; abandoned: unknown; recovered: unknown; revenue: unknown }[],
  dayOf: (hour: string) => string,
  first30: string,
  today: string,
) {
  const abandonedByDay = new Map<string, { abandoned: number; recovered: number; revenue: number }>();
  for (const h of abandoned) {
    const date = dayOf(h.hour);
    const d = abandonedByDay.get(date) ?? { abandoned: 0, recovered: 0, revenue: 0 };
    d.abandoned += Number(h.abandoned);
    d.recovered += Number(h.recovered);
    d.revenue += Number(h.revenue);
    abandonedByDay.set(date, d);
  }
  const sumDays = (from: string, to: string) => {
    const s = { abandoned: 0, recovered: 0, revenue: 0 };
    for (const [date, d] of abandonedByDay) {
      if (date < from || date > to) continue;
      s.abandoned += d.abandoned;
      s.recovered += d.recovered;
      s.revenue += d.revenue;
    }
    return s;
  };
  const carts30 = sumDays(first30, today);
  const recoveryByWeek = Array.from({ length: RECOVERY_WEEKS }, (_, i) => {
    const back = RECOVERY_WEEKS - 1 - i;
    const end = daysBefore(today, back * 7);
    const start = daysBefore(end, 6);
    const w = sumDays(start, end);
    return { start, end, abandoned: w.abandoned, recovered: w.recovered, rate: rate(w.recovered, w.abandoned) };
  });
  return { carts30, recoveryByWeek };
}

/** The dashboard's figures (any staff member). `now` is the clock (tests may move it). */
export async function dashboardReport(ctx: Ctx, now: Date = clockNow()): Promise<DashboardReport> {
  requireMerchant(ctx);
  const { db, currency } = ctx;
  // Far enough back for eight weeks in any zone (offsets reach ±14 hours); each figure then keeps its own days.
  const since = new Date(now.getTime() - (RECOVERY_WEEKS * 7 + 1) * 24 * 3600_000).toISOString().slice(0, 13);
  const [[store], sales, refunds, abandoned, [bis], [lowStock], [tasks], [attention]] = await runBatch(db, [
    db.select({ value: settings.value }).from(settings).where(eq(settings.key, STORE_SETTINGS_KEY)),
    salesByHourRead(db, since, currency),
    refundsByHourRead(db, since, currency),
    abandonedByHourRead(db, since),
    backInStockCountsRead(db),
    lowStockCountRead(db),
    openTasksCountRead(db),
    attentionCountsRead(db),
  ]);

  const storeZone = zoneOf(store?.value);
  const zone = storeZone ?? "UTC";
  // The day an hour bucket ("2026-11-25T17") belongs to: the local date of the hour's middle.
  const dayOf = (hour: string) => localDate(Date.parse(`${hour}:30:00Z`), zone);
  const today = localDate(now.getTime(), zone);
  const money = (minor: number): Money => ({ minor, formatted: formatMoney(minor, currency) });

  const salesByDay = salesDays(sales, refunds, dayOf, today, currency);
  const first30 = salesByDay[0].date;
  const todays = salesByDay[SALES_DAYS - 1];
  const total30 = salesByDay.reduce(
    (a, d) => ({ orders: a.orders + d.orders, gross: a.gross + d.gross, refunds: a.refunds + d.refunds, sales: a.sales + d.sales }),
    {
      orders: 0,
      gross: 0,
      refunds: 0,
      sales: 0,
    },
  );
  const period = (f: { orders: number; gross: number; refunds: number; sales: number }) => ({
    gross: money(f.gross),
    refunds: money(f.refunds),
    sales: money(f.sales),
    orders: f.orders,
    averageOrderValue: money(f.orders ? Math.round(f.sales / f.orders) : 0),
  });

  const { carts30, recoveryByWeek } = cartDays(abandoned, dayOf, first30, today);

  return {
    timeZone: zone,
    timeZoneSource: storeZone ? "store" : "default",
    currency,
    today: { date: today, ...period(todays) },
    last30Days: { from: first30, to: today, ...period(total30) },
    salesByDay,
    abandonedCarts: {
      abandoned: carts30.abandoned,
      recovered: carts30.recovered,
      recoveredRevenue: money(carts30.revenue),
      recoveryRate: rate(carts30.recovered, carts30.abandoned),
    },
    recoveryByWeek,
    backInStock: { waiting: Number(bis?.waiting ?? 0), notified: Number(bis?.notified ?? 0) },
    lowStockItems: Number(lowStock?.total ?? 0),
    openTasks: Number(tasks?.open ?? 0),
    failedDeliveries: Number(attention?.failedDeliveries ?? 0),
    deadEvents: Number(attention?.deadEvents ?? 0),
    eventLag: { ...queueLagOf(attention, now), alertAfterSeconds: config(ctx.env).eventLagAlertSeconds },
  };
}
