import type { ReactNode } from "react";
import { useLoaderData } from "react-router";
import { counted, linkColumn, type Column } from "#web/components/ui/table";
import { Badge } from "../badge";
import { money, schedule, StatusBadge } from "../pricing";
import { PricingList } from "../pricing-list";
import type { AdditionalFee, Coupon, DiscountRule, ShippingRegion, TaxGroup, TaxRegion } from "../pricing-items";
import { couponDiscount, discountText, RegionOptions, triggerText } from "./cells";
import "#web/styles/console-pricing.css";

/**
 * The pricing lists as data: each kind's heading, "New …" button, status line and columns, shown by one PricingList.
 * The route modules only name their kind.
 */
interface ListKind<T> {
  heading: string;
  /** A list with a page of its own (tax groups) has its own title and way back instead of the pricing tabs' heading. */
  own?: { back: readonly [to: string, label: string] };
  create: readonly [to: string, label: string];
  /** The status line: what an empty list says, else how many and what to know. */
  empty: string;
  count: (total: number) => ReactNode;
  columns: (currency: string) => Column<T>[];
}

/** What a list page's loader answers (listPage in ../pricing.server). */
interface ListData<T> {
  items: readonly T[];
  total: number;
  page: number;
  pages: number;
  notice: string | null;
  currency?: string;
}

const COUPONS: ListKind<Coupon> = {
  heading: "Coupons",
  create: ["/console/pricing/coupons/new", "New coupon"],
  empty: "No coupons yet.",
  count: (n) => `${counted(n, "coupon", "coupons")}. Shoppers enter the code on their cart; codes ignore case.`,
  columns: (currency) => [
    linkColumn(
      "Code",
      (c) => `/console/pricing/coupons/${c.id}`,
      (c) => c.code,
      { className: "pricing-code" },
    ),
    { header: "Name", cell: (c) => c.name },
    { header: "Discount", cell: (c) => couponDiscount(c, currency) },
    { header: "Minimum subtotal", num: true, cell: (c) => money(c.minimumSubtotal, currency) },
    { header: "Used", num: true, cell: (c) => (c.usageLimit === null ? `${c.timesUsed} (no limit)` : `${c.timesUsed} of ${c.usageLimit}`) },
    { header: "Schedule", cell: (c) => schedule(c.startTime, c.expirationTime) },
    {
      header: "Status",
      cell: (c) => <StatusBadge active={c.active} status={c.status} usedUp={c.usageLimit !== null && c.timesUsed >= c.usageLimit} />,
    },
  ],
};

const DISCOUNTS: ListKind<DiscountRule> = {
  heading: "Discount rules",
  create: ["/console/pricing/discounts/new", "New discount rule"],
  empty: "No discount rules yet.",
  count: (n) =>
    `${counted(n, "rule", "rules")}. Rules that are on and within their dates apply by themselves when their condition holds, oldest first, before a coupon.`,
  columns: (currency) => [
    linkColumn(
      "Name",
      (r) => `/console/pricing/discounts/${r.id}`,
      (r) => r.name,
    ),
    { header: "Discount", cell: (r) => discountText(r.discounts.values[0], currency) },
    { header: "Condition", cell: (r) => triggerText(r.trigger, currency) },
    { header: "Schedule", cell: (r) => schedule(r.activeTimeInfo.start, r.activeTimeInfo.end) },
    { header: "Orders", num: true, cell: (r) => r.usageCount },
    { header: "Status", cell: (r) => <StatusBadge active={r.active} status={r.status} /> },
  ],
};

const SHIPPING: ListKind<ShippingRegion> = {
  heading: "Shipping regions",
  create: ["/console/pricing/shipping/new", "New shipping region"],
  empty: "No shipping regions yet: nothing can be shipped.",
  count: (n) =>
    `${counted(n, "region", "regions")}. A destination takes the options of the region that lists its country (or subdivision), else the rest-of-the-world region.`,
  columns: (currency) => [
    linkColumn(
      "Region",
      (r) => `/console/pricing/shipping/${r.id}`,
      (r) => r.name,
    ),
    { header: "Destinations", cell: (r) => (r.restOfWorld ? "Rest of the world" : [...r.countries, ...r.subdivisions].join(", ")) },
    { header: "Options: rate, free above, rules", cell: (r) => <RegionOptions options={r.options} currency={currency} /> },
  ],
};

const TAX_REGIONS: ListKind<TaxRegion> = {
  heading: "Tax regions",
  create: ["/console/pricing/tax/regions/new", "New tax region"],
  empty: "No tax regions: no tax is charged.",
  count: (n) => `${counted(n, "region", "regions")}. A subdivision's region wins over its country's.`,
  columns: () => [
    linkColumn(
      "Region",
      (r) => `/console/pricing/tax/regions/${r.id}`,
      (r) => r.name,
    ),
    { header: "Place", cell: (r) => r.subdivision ?? r.country },
    { header: "Rate", num: true, cell: (r) => `${r.defaultRate}%` },
    { header: "Group rates", num: true, cell: (r) => (r.groupRates.length ? r.groupRates.map((g) => `${g.rate}%`).join(", ") : "—") },
    { header: "Shipping taxed", cell: (r) => (r.taxShipping ? "Yes" : "No") },
  ],
};

const TAX_GROUPS: ListKind<TaxGroup> = {
  heading: "Tax groups",
  own: { back: ["/console/pricing/tax", "Tax"] },
  create: ["/console/pricing/tax/groups/new", "New tax group"],
  empty: "No tax groups: every product pays its region's rate.",
  count: (n) => `${counted(n, "group", "groups")}. Each tax region can give a group a rate of its own.`,
  columns: () => [
    linkColumn(
      "Group",
      (g) => `/console/pricing/tax/groups/${g.id}`,
      (g) => g.name,
    ),
    { header: "Products", num: true, cell: (g) => g.catalogItemIds.length },
    { header: "Collections", num: true, cell: (g) => g.collectionIds.length },
  ],
};

const FEES: ListKind<AdditionalFee> = {
  heading: "Additional fees",
  create: ["/console/pricing/fees/new", "New fee"],
  empty: "No additional fees.",
  count: (n) => `${counted(n, "fee", "fees")}, added to every order that reaches their minimum (not taxed).`,
  columns: (currency) => [
    linkColumn(
      "Name",
      (f) => `/console/pricing/fees/${f.id}`,
      (f) => f.name,
    ),
    { header: "Code", className: "pricing-code", cell: (f) => f.code },
    { header: "Kind", cell: (f) => (f.type === "INSURANCE" ? "Insurance" : "Handling") },
    { header: "Charge", num: true, cell: (f) => (f.amount != null ? money(f.amount, currency) : `${f.percentage}% of the subtotal`) },
    { header: "From a subtotal of", num: true, cell: (f) => money(f.minimumSubtotal, currency) },
    { header: "Status", cell: (f) => (f.active ? <Badge tone="good">Active</Badge> : <Badge>Off</Badge>) },
  ],
};

/** One kind's list page: the frame, its status line and its columns. */
export function KindList<T extends { id: string }>(props: {
  kind: ListKind<T>;
  list: ListData<T>;
  notice?: string | null;
  before?: ReactNode;
  /** Said after the status line. */
  more?: ReactNode;
}) {
  const { kind, list } = props;
  return (
    <PricingList
      heading={kind.heading}
      title={kind.own && kind.heading}
      back={kind.own?.back}
      create={kind.create}
      list={list}
      notice={props.notice}
      before={props.before}
      status={
        <>
          {list.total === 0 ? kind.empty : kind.count(list.total)}
          {props.more}
        </>
      }
      columns={kind.columns(list.currency ?? "")}
    />
  );
}

/** The lists a route can name (its loader answers the name with the page of items). */
export const KINDS = { coupons: COUPONS, discounts: DISCOUNTS, shipping: SHIPPING, taxGroups: TAX_GROUPS, fees: FEES };

/** A pricing list route's page: the kind its loader named, with the page of items it read (the route's loader data). */
export function PricingListPage() {
  const list = useLoaderData() as ListData<{ id: string }> & { kind: keyof typeof KINDS };
  return <KindList kind={KINDS[list.kind] as ListKind<{ id: string }>} list={list} />;
}

export { TAX_REGIONS };
