import type { ReactNode } from "react";
import { Link } from "react-router";
import { DataTable, ListStatus, type Column } from "#web/components/ui/table";
import { Pager } from "./pager";
import { Notice, NOTICE_PARAMS, PricingNav, useCanManagePricing } from "./pricing";

/**
 * The frame of every pricing list (coupons, discount rules, shipping regions, fees): the Pricing heading with its
 * "New …" button for someone who may change pricing, the tabs, the saved/deleted notice, the list's own heading and
 * status line, the table and its pages.
 */
export function PricingList<T extends { id: string }>(props: {
  heading: string;
  newPath: string;
  newLabel: string;
  notice: string | null;
  status: ReactNode;
  rows: readonly T[];
  columns: readonly Column<T>[];
  page: number;
  pages: number;
  children?: ReactNode;
}) {
  const canWrite = useCanManagePricing();
  return (
    <>
      <div className="pricing-head">
        <h1>Pricing</h1>
        {canWrite && (
          <Link to={props.newPath} className="console-button primary">
            {props.newLabel}
          </Link>
        )}
      </div>
      <PricingNav />
      <Notice text={props.notice} />
      <h2>{props.heading}</h2>
      <ListStatus>{props.status}</ListStatus>
      <DataTable caption={props.heading} rows={props.rows} rowKey={(r) => r.id} columns={props.columns} />
      {props.children}
      <Pager page={props.page} pages={props.pages} label={`Pages of ${props.heading.toLowerCase()}`} without={NOTICE_PARAMS} />
    </>
  );
}
