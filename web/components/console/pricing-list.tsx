import type { ReactNode } from "react";
import { DataTable, ListStatus, type Column } from "#web/components/ui/table";
import { Notice, PageHead, useCreateLink } from "#web/components/ui/page";
import { Pager } from "./pager";
import { NOTICE_PARAMS, PRICING_PERMISSION, PricingNav } from "./pricing";

/**
 * The frame of every pricing list (coupons, discount rules, shipping regions, tax, fees): the heading (Pricing, unless
 * the list has its own) with its "New …" button for someone who may change pricing, the tabs, the saved/deleted
 * notice, what comes before the list (the tax settings), the list's own heading and status line, the table and its pages.
 */
export function PricingList<T extends { id: string }>(props: {
  /** The list's name: its table's caption, and its heading under "Pricing" unless it is the page's `title`. */
  heading: string;
  title?: string;
  back?: readonly [to: string, label: string];
  /** The page of items the loader read (listPage in ./pricing.server) and the notice in its URL. */
  list: { items: readonly T[]; page: number; pages: number; notice: string | null };
  /** The "New …" button: where it goes and what it says. */
  create: readonly [to: string, label: string];
  /** A notice of the page's own, shown instead of the list's. */
  notice?: string | null;
  before?: ReactNode;
  status: ReactNode;
  columns: readonly Column<T>[];
  children?: ReactNode;
}) {
  const { items, page, pages, notice } = props.list;
  const action = useCreateLink(PRICING_PERMISSION, props.create[0], props.create[1]);
  return (
    <>
      <PageHead title={props.title ?? "Pricing"} back={props.back} actions={action}>
        <PricingNav />
      </PageHead>
      <Notice text={props.notice ?? notice} />
      {props.before}
      {!props.title && <h2>{props.heading}</h2>}
      <ListStatus>{props.status}</ListStatus>
      <DataTable caption={props.heading} rows={items} rowKey={(r) => r.id} columns={props.columns} />
      {props.children}
      <Pager page={page} pages={pages} label={`Pages of ${props.heading.toLowerCase()}`} without={NOTICE_PARAMS} />
    </>
  );
}
