import type { ReactNode } from "react";
import { Link } from "react-router";

/**
 * The console's list pieces: a table of rows with a hidden caption, scrolling sideways on narrow screens, and the
 * status line a list shows above it (how many, or why there is nothing).
 */

/** One column: its heading and each row's cell; `rowHeader` makes the cell the row's heading (th scope="row"). */
export interface Column<T> {
  header: ReactNode;
  cell: (row: T) => ReactNode;
  /** A number column, right-aligned. */
  num?: boolean;
  rowHeader?: boolean;
  /** A class for the column's cells (not its heading). */
  className?: string;
  /** A class for the column's heading. */
  headerClassName?: string;
}

/** The row-heading column whose cell links to the row's own page (`prefetch` and `className` go to the link). */
export function linkColumn<T>(
  header: ReactNode,
  to: (row: T) => string,
  label: (row: T) => ReactNode,
  link: { prefetch?: "intent"; className?: string } = {},
): Column<T> {
  return {
    header,
    rowHeader: true,
    cell: (row) => (
      <Link to={to(row)} {...link}>
        {label(row)}
      </Link>
    ),
  };
}

/** A table of `rows`, one column each of `columns`; nothing when there are no rows. */
export function DataTable<T>({
  caption,
  rows,
  rowKey,
  columns,
  className,
  rowHidden,
  rowClass,
}: {
  caption: string;
  rows: readonly T[];
  rowKey: (row: T) => string;
  columns: readonly Column<T>[];
  className?: string;
  /** Rows to hide while they stay mounted (e.g. one being removed, which comes back if the removal is refused). */
  rowHidden?: (row: T) => boolean;
  /** A class for a row (a canceled order's, greyed). */
  rowClass?: (row: T) => string | undefined;
}) {
  if (rows.length === 0) return null;
  const cellClass = (c: Column<T>) => [c.num ? "num" : "", c.className ?? ""].filter(Boolean).join(" ") || undefined;
  const headClass = (c: Column<T>) => [c.num ? "num" : "", c.headerClassName ?? ""].filter(Boolean).join(" ") || undefined;
  return (
    <div className="console-scroll">
      <table className={className ? `console-table ${className}` : "console-table"}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" className={headClass(c)}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)} className={rowClass?.(row)} hidden={rowHidden?.(row) || undefined}>
              {columns.map((c, i) =>
                c.rowHeader ? (
                  <th key={i} scope="row" className={cellClass(c)}>
                    {c.cell(row)}
                  </th>
                ) : (
                  <td key={i} className={cellClass(c)}>
                    {c.cell(row)}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The status line above a list: announced politely when it changes. */
export function ListStatus({ children }: { children: ReactNode }) {
  return (
    <p className="console-muted" role="status">
      {children}
    </p>
  );
}

/** "3 coupons" / "1 coupon". */
export function counted(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
