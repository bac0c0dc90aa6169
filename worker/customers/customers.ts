import { sql, type SQL } from "drizzle-orm";
import { emailSchema } from "#worker/identity";
import { actorOf, requireMerchant, requirePermission, type Ctx } from "#worker/platform/context";
import { rawStatement } from "#worker/platform/db";
import { badField, notFound } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { now } from "#worker/platform/clock";
import { formatMoney, toDecimalString } from "#worker/platform/money";
import { runBatch } from "#worker/platform/unit-of-work";
import { customerNotes } from "./tables";

/**
 * Customers: everyone who bought (guests, by the email on their orders) and every member, one customer per
 * lower-cased email, so a member and their guest orders are the same customer. Nothing is copied: each figure is an
 * SQL aggregate over that email's orders (orders_buyer_email_idx), read one page of emails at a time.
 *
 * Lifetime spend is what the customer paid and kept paying: paid orders (paid, partly paid or refunded) in the
 * store's currency, each counting its total less its settled refunds (order_refunds), a fully refunded one nothing.
 */

export const CUSTOMER_PAGE_SIZE = 25;

/** One row of the customer list, the CSV export and the head of the customer page. */
export interface CustomerSummary {
  email: string;
  name: string;
  memberId: string | null;
  orders: number;
  paidOrders: number;
  /** Minor units, net of refunds. */
  spent: number;
  refunded: number;
  averageOrder: number;
  firstOrder: string | null;
  lastOrder: string | null;
  currency: string;
  formatted: { spent: string; refunded: string; averageOrder: string };
}

/** An order counts for the customer when it was placed (not canceled, rejected or still waiting for its payment page). */
const PLACED = sql.raw("o.status NOT IN ('CANCELED', 'REJECTED', 'INITIALIZED')");
const PAID = sql.raw("o.payment_status IN ('PAID', 'PARTIALLY_PAID', 'PARTIALLY_REFUNDED', 'FULLY_REFUNDED')");
const REFUNDED = sql.raw(
  "CASE WHEN o.payment_status = 'FULLY_REFUNDED' THEN o.total ELSE min(o.total, (SELECT coalesce(sum(r.amount), 0) FROM order_refunds r WHERE r.order_id = o.id AND r.status = 'SUCCEEDED')) END",
);

/** The figures of the customer named by `email` (a column or a value), as one row's columns. */
function figures(email: SQL, currency: string): SQL {
  const mine = sql`FROM orders o WHERE o.buyer_email = ${email} AND ${PLACED}`;
  const paid = sql`${mine} AND ${PAID} AND o.currency = ${currency}`;
  return sql`(SELECT i.id FROM identities i WHERE i.email = ${email} AND i.role = 'MEMBER') AS member_id,
    (SELECT trim(coalesce(json_extract(i.profile, '$.firstName'), '') || ' ' || coalesce(json_extract(i.profile, '$.lastName'), ''))
      FROM identities i WHERE i.email = ${email}) AS member_name,
    (SELECT trim(coalesce(json_extract(o.details, '$.billingInfo.contactDetails.firstName'), json_extract(o.details, '$.recipientInfo.contactDetails.firstName'), '')
      || ' ' || coalesce(json_extract(o.details, '$.billingInfo.contactDetails.lastName'), json_extract(o.details, '$.recipientInfo.contactDetails.lastName'), ''))
      FROM orders o WHERE o.buyer_email = ${email} ORDER BY o.purchased_date DESC LIMIT 1) AS order_name,
    (SELECT count(*) ${mine}) AS orders,
    (SELECT count(*) ${paid}) AS paid_orders,
    (SELECT coalesce(sum(o.total), 0) ${paid}) AS paid_total,
    (SELECT coalesce(sum(${REFUNDED}), 0) ${paid}) AS refunded,
    (SELECT min(o.purchased_date) ${mine}) AS first_order,
    (SELECT max(o.purchased_date) ${mine}) AS last_order`;
}

interface FigureRow {
  email: string;
  member_id: string | null;
  member_name: string | null;
  order_name: string | null;
  orders: number;
  paid_orders: number;
  paid_total: number;
  refunded: number;
  first_order: string | null;
  last_order: string | null;
}

function summaryOf(r: FigureRow, currency: string): CustomerSummary {
  const spent = Number(r.paid_total) - Number(r.refunded);
  const paidOrders = Number(r.paid_orders);
  const averageOrder = paidOrders ? Math.round(spent / paidOrders) : 0;
  return {
    email: r.email,
    name: r.member_name || r.order_name || "",
    memberId: r.member_id,
    orders: Number(r.orders),
    paidOrders,
    spent,
    refunded: Number(r.refunded),
    averageOrder,
    firstOrder: r.first_order,
    lastOrder: r.last_order,
    currency,
    formatted: {
      spent: formatMoney(spent, currency),
      refunded: formatMoney(Number(r.refunded), currency),
      averageOrder: formatMoney(averageOrder, currency),
    },
  };
}

/** The smallest string greater than every string that starts with `prefix`, for a prefix range on an index. */
const prefixEnd = (prefix: string) => `${prefix}\uffff`;

/**
 * One page of customer emails after `after`, in email order, each with its figures: the guests' emails from the
 * orders index and the members' from the identities index, merged, then the figures per email through the index.
 * One statement; `q` narrows to emails starting with it.
 */
export function customerPageSql(currency: string, after: string, q: string, limit: number): SQL {
  const from = q && q > after ? q : after;
  const strict = from === after ? sql`>` : sql`>=`;
  const upper = q ? prefixEnd(q) : "\uffff";
  return sql`WITH page(email) AS (
      SELECT email FROM (SELECT buyer_email AS email FROM orders WHERE buyer_email ${strict} ${from} AND buyer_email < ${upper}
        GROUP BY buyer_email ORDER BY buyer_email LIMIT ${limit})
      UNION
      SELECT email FROM (SELECT email FROM identities WHERE email ${strict} ${from} AND email < ${upper} AND role = 'MEMBER'
        ORDER BY email LIMIT ${limit})
      ORDER BY email LIMIT ${limit})
    SELECT p.email AS email, ${figures(sql`p.email`, currency)} FROM page p ORDER BY p.email`;
}

const rowsOf = <T>(result: unknown) => ((result as { results?: T[] }).results ?? []) as T[];

/** A page of customers (any staff member): `cursor` is the last email of the page before. */
export async function listCustomers(ctx: Ctx, opts: { q?: string; cursor?: string; limit?: number } = {}) {
  requireMerchant(ctx);
  const limit = Math.min(Math.max(opts.limit ?? CUSTOMER_PAGE_SIZE, 1), 200);
  const q = (opts.q ?? "").trim().toLowerCase().slice(0, 254);
  const [result] = await runBatch(ctx.db, [rawStatement(ctx.db, customerPageSql(ctx.currency, opts.cursor ?? "", q, limit + 1))]);
  const rows = rowsOf<FigureRow>(result);
  const customers = rows.slice(0, limit).map((r) => summaryOf(r, ctx.currency));
  return { customers, next: rows.length > limit ? customers[customers.length - 1].email : null };
}

/** Every customer (or those whose email starts with `q`) as CSV, read and written 100 customers at a time. */
export function exportCustomersCsv(ctx: Ctx, q = ""): ReadableStream<Uint8Array> {
  requireMerchant(ctx);
  const encoder = new TextEncoder();
  let cursor: string | null = "";
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(encoder.encode(csvLine(CSV_HEADER)));
    },
    async pull(controller) {
      if (cursor === null) return controller.close();
      const page = await listCustomers(ctx, { q, cursor, limit: 100 });
      const money = (minor: number) => toDecimalString(minor, ctx.currency);
      controller.enqueue(
        encoder.encode(
          page.customers
            .map((c) =>
              csvLine([
                c.email,
                c.name,
                c.memberId ? "member" : "guest",
                String(c.orders),
                money(c.spent),
                money(c.refunded),
                money(c.averageOrder),
                c.firstOrder ?? "",
                c.lastOrder ?? "",
                c.currency,
              ]),
            )
            .join(""),
        ),
      );
      cursor = page.next;
    },
  });
}

const CSV_HEADER = ["email", "name", "kind", "orders", "lifetime_spend", "refunded", "average_order", "first_order", "last_order", "currency"];

/** One CSV line (RFC 4180, CRLF); a cell a spreadsheet would run as a formula gets a leading apostrophe. */
function csvLine(cells: string[]): string {
  return `${cells
    .map((c) => {
      const safe = /^[=+\-@\t\r]/.test(c) ? `'${c}` : c;
      return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
    })
    .join(",")}\r\n`;
}

export interface CustomerOrder {
  id: string;
  number: number;
  placed: string;
  status: string;
  paymentStatus: string;
  fulfillmentStatus: string;
  total: string;
  refunded: string;
}

export interface CustomerCart {
  id: string;
  status: string;
  items: number;
  updated: string;
}

export interface CustomerNote {
  id: string;
  body: string;
  author: string;
  created: string;
}

export interface CustomerDetail extends CustomerSummary {
  status: string | null;
  phones: string[];
  addresses: string[];
  /** Marketing emails: "subscribed" (the default), or "unsubscribed" with the date. */
  marketing: { consent: boolean; unsubscribedDate: string | null };
  orderList: CustomerOrder[];
  carts: CustomerCart[];
  notes: CustomerNote[];
}

/** The most orders the customer page lists (the newest). */
const ORDERS_SHOWN = 50;

interface AddressParts {
  addressLine?: string | null;
  addressLine2?: string | null;
  city?: string | null;
  postalCode?: string | null;
  subdivision?: string | null;
  country?: string | null;
}

/** An address as one line ("1 Main St, New York 10001, US-NY, US"). */
function addressText(a: AddressParts | null | undefined): string {
  if (!a) return "";
  const city = [a.city, a.postalCode].filter(Boolean).join(" ");
  return [a.addressLine, a.addressLine2, city, a.subdivision, a.country].filter(Boolean).join(", ");
}

const json = <T>(text: unknown): T | null => (typeof text === "string" ? (JSON.parse(text) as T) : null);

/** One customer by email (any staff member), in one D1 round trip: figures, orders, carts, notes, consent. */
export async function getCustomer(ctx: Ctx, rawEmail: string): Promise<CustomerDetail> {
  requireMerchant(ctx);
  const email = rawEmail.trim().toLowerCase();
  const { db, currency } = ctx;
  const [figureResult, identityResult, orderResult, cartResult, noteResult, consentResult] = await runBatch(db, [
    rawStatement(db, sql`SELECT ${email} AS email, ${figures(sql`${email}`, currency)}`),
    rawStatement(db, sql`SELECT id, status, profile FROM identities WHERE email = ${email} AND role = 'MEMBER'`),
    rawStatement(
      db,
      sql`SELECT o.id, o.number, o.purchased_date, o.status, o.payment_status, o.fulfillment_status, o.total, o.currency,
        ${REFUNDED} AS refunded,
        json_extract(o.details, '$.recipientInfo.address') AS shipping, json_extract(o.details, '$.billingInfo.address') AS billing,
        coalesce(json_extract(o.details, '$.billingInfo.contactDetails.phone'), json_extract(o.details, '$.recipientInfo.contactDetails.phone')) AS phone
        FROM orders o WHERE o.buyer_email = ${email} ORDER BY o.purchased_date DESC LIMIT ${ORDERS_SHOWN}`,
    ),
    rawStatement(
      db,
      sql`SELECT c.id, c.status, c.updated_date, (SELECT coalesce(sum(l.quantity), 0) FROM cart_line_items l WHERE l.cart_id = c.id) AS items
        FROM carts c WHERE (c.owner_kind = 'member' AND c.owner_id IN (SELECT i.id FROM identities i WHERE i.email = ${email}))
          OR (c.owner_kind = 'visitor' AND c.owner_id IN (SELECT o.owner_id FROM orders o WHERE o.buyer_email = ${email} AND o.owner_kind = 'visitor'))
        ORDER BY c.updated_date DESC LIMIT 20`,
    ),
    rawStatement(
      db,
      sql`SELECT id, body, author_name, created_date FROM customer_notes WHERE email = ${email} ORDER BY created_date DESC, id DESC LIMIT 100`,
    ),
    rawStatement(db, sql`SELECT unsubscribed_date FROM email_subscriptions WHERE email = ${email}`),
  ]);
  const [figureRow] = rowsOf<FigureRow>(figureResult);
  const [member] = rowsOf<{ id: string; status: string; profile: string }>(identityResult);
  const orderRows = rowsOf<Record<string, unknown>>(orderResult);
  if (!member && orderRows.length === 0) throw notFound("CUSTOMER_NOT_FOUND", "customer", email, "email");
  const profile = json<{ phones?: unknown[]; addresses?: { address?: AddressParts }[] }>(member?.profile) ?? {};
  const addresses = new Set<string>();
  for (const a of profile.addresses ?? []) addresses.add(addressText(a.address ?? (a as AddressParts)));
  const phones = new Set<string>((profile.phones ?? []).map((p) => (typeof p === "string" ? p : String((p as { phone?: string }).phone ?? ""))));
  for (const o of orderRows) {
    addresses.add(addressText(json<AddressParts>(o.shipping)));
    addresses.add(addressText(json<AddressParts>(o.billing)));
    if (typeof o.phone === "string") phones.add(o.phone);
  }
  const [consent] = rowsOf<{ unsubscribed_date: string | null }>(consentResult);
  return {
    ...summaryOf(figureRow, currency),
    status: member?.status ?? null,
    phones: [...phones].filter(Boolean),
    addresses: [...addresses].filter(Boolean),
    marketing: { consent: !consent?.unsubscribed_date, unsubscribedDate: consent?.unsubscribed_date ?? null },
    orderList: orderRows.map((o) => ({
      id: String(o.id),
      number: Number(o.number),
      placed: String(o.purchased_date),
      status: String(o.status),
      paymentStatus: String(o.payment_status),
      fulfillmentStatus: String(o.fulfillment_status),
      total: formatMoney(Number(o.total), String(o.currency)),
      refunded: formatMoney(Number(o.refunded), String(o.currency)),
    })),
    carts: rowsOf<{ id: string; status: string; updated_date: string; items: number }>(cartResult).map((c) => ({
      id: c.id,
      status: c.status,
      items: Number(c.items),
      updated: c.updated_date,
    })),
    notes: rowsOf<{ id: string; body: string; author_name: string | null; created_date: string }>(noteResult).map((n) => ({
      id: n.id,
      body: n.body,
      author: n.author_name ?? "",
      created: n.created_date,
    })),
  };
}

/** The longest staff note. */
const NOTE_MAX = 2000;

/** Adds a staff note to a customer (orders.write): who wrote it and when are kept with it. */
export async function addCustomerNote(ctx: Ctx, rawEmail: string, input: { body?: unknown }): Promise<CustomerNote> {
  requirePermission(ctx, "orders.write");
  const parsed = emailSchema.safeParse(rawEmail);
  if (!parsed.success) throw badField("email", "must be a valid email address");
  const body = typeof input.body === "string" ? input.body.trim() : "";
  if (!body) throw badField("body", "is required");
  if (body.length > NOTE_MAX) throw badField("body", `must be at most ${NOTE_MAX} characters`);
  const actor = actorOf(ctx.auth);
  const author = await authorName(ctx);
  const row = {
    id: newId(),
    email: parsed.data,
    body,
    authorType: actor.type,
    authorId: actor.id,
    authorName: author,
    createdDate: now().toISOString(),
  };
  await runBatch(ctx.db, [ctx.db.insert(customerNotes).values(row)]);
  return { id: row.id, body, author, created: row.createdDate };
}

/** The author's name on a note: a staff member's email, or "API key". */
async function authorName(ctx: Ctx): Promise<string> {
  if (ctx.auth.kind !== "member") return "API key";
  const [result] = await runBatch(ctx.db, [rawStatement(ctx.db, sql`SELECT email FROM identities WHERE id = ${ctx.auth.identityId}`)]);
  return rowsOf<{ email: string }>(result)[0]?.email ?? "Staff";
}
