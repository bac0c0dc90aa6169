import { useId, type ReactNode } from "react";
import { Link } from "react-router";
import { DataTable } from "../ui/table";

/**
 * The dashboard's charts, drawn on the server as SVG: no chart library and no client JavaScript. Each chart is an
 * image with a title and a description for screen readers (role="img", <title>, <desc>), and the same figures as a
 * table in a <details> below it, for anyone who prefers (or needs) the numbers.
 */

const WIDTH = 720;
const HEIGHT = 220;
const PAD = { top: 16, right: 12, bottom: 34, left: 64 };

export interface BarDatum {
  /** The axis label (short). */
  label: string;
  /** The full label, for the table and the bar's tooltip. */
  longLabel: string;
  value: number;
  /** The value as people read it ("$84.00", "50%"). */
  formatted: string;
}

/** A round number at or above `max` for the axis top, so the gridlines read as plain values. */
function niceMax(max: number): number {
  if (max <= 0) return 1;
  const step = 10 ** Math.floor(Math.log10(max));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * step >= max) return m * step;
  return 10 * step;
}

export function BarChart({
  title,
  description,
  data,
  formatAxis,
  maxValue,
  labelEvery = 1,
  tableHeads,
  children,
}: {
  title: string;
  description: string;
  data: BarDatum[];
  formatAxis: (v: number) => string;
  /** A fixed top of the axis (100 for a percentage); else from the data. */
  maxValue?: number;
  /** Label every n-th bar on the axis (30 days do not fit under the bars otherwise). */
  labelEvery?: number;
  tableHeads: [string, string];
  children?: ReactNode;
}) {
  const id = useId();
  const top = maxValue ?? niceMax(Math.max(0, ...data.map((d) => d.value)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, data.length);
  const barW = Math.max(2, slot * 0.7);
  const y = (v: number) => PAD.top + plotH - (Math.min(v, top) / top) * plotH;
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => f * top);
  return (
    <figure className="dash-chart">
      <h3 className="dash-chart-title">{title}</h3>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${id}-t ${id}-d`} preserveAspectRatio="xMidYMid meet">
        <title id={`${id}-t`}>{title}</title>
        <desc id={`${id}-d`}>{description}</desc>
        {ticks.map((t) => (
          <g key={t}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(t)} y2={y(t)} className="dash-grid" />
            <text x={PAD.left - 6} y={y(t) + 4} textAnchor="end" className="dash-axis">
              {formatAxis(t)}
            </text>
          </g>
        ))}
        {data.map((d, i) => {
          const x = PAD.left + i * slot + (slot - barW) / 2;
          return (
            <g key={d.longLabel}>
              <rect x={x} y={y(d.value)} width={barW} height={Math.max(0, PAD.top + plotH - y(d.value))} className="dash-bar">
                <title>{`${d.longLabel}: ${d.formatted}`}</title>
              </rect>
              {i % labelEvery === (data.length - 1) % labelEvery && (
                <text x={x + barW / 2} y={HEIGHT - PAD.bottom + 16} textAnchor="middle" className="dash-axis">
                  {d.label}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        <details>
          <summary>{`${title}: the figures as a table`}</summary>
          <DataTable<BarDatum>
            caption={title}
            rows={data}
            rowKey={(d) => d.longLabel}
            columns={[
              { header: tableHeads[0], rowHeader: true, cell: (d) => d.longLabel },
              { header: tableHeads[1], num: true, cell: (d) => d.formatted },
            ]}
          />
          {children}
        </details>
      </figcaption>
    </figure>
  );
}

/** "2026-11-25" → "Nov 25" (the date is already the store's; formatting it in UTC keeps it that day). */
export const shortDate = (date: string) =>
  new Intl.DateTimeFormat("en-US", { month: "short", day: "numeric", timeZone: "UTC" }).format(new Date(`${date}T12:00:00Z`));

/** "2026-11-25" → "Wed, November 25, 2026". */
export const longDate = (date: string) =>
  new Intl.DateTimeFormat("en-US", { weekday: "short", month: "long", day: "numeric", year: "numeric", timeZone: "UTC" }).format(
    new Date(`${date}T12:00:00Z`),
  );

/** One figure of the dashboard, linking to where it comes from. */
export interface Figure {
  label: string;
  value: string;
  to: string;
  /** Shown in warning colours when it calls for action. */
  attention?: boolean;
}

/** A row of figures, each a link to its page. */
export function Figures({ label, figures }: { label: string; figures: Figure[] }) {
  return (
    <ul className="dash-figures" aria-label={label}>
      {figures.map((f) => (
        <li key={f.label}>
          <Link to={f.to} className={f.attention ? "dash-attention" : undefined}>
            <span className="dash-label">{f.label}</span> <strong className="dash-value">{f.value}</strong>
          </Link>
        </li>
      ))}
    </ul>
  );
}
