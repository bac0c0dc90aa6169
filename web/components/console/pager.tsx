import { Link, useSearchParams } from "react-router";

/**
 * A console list's page links: previous, "Page n of m", next. The links keep the URL's other parameters (filters,
 * search), so a page of a filtered list stays filtered; page 1 is the address without `page`.
 */
export function Pager({
  page,
  pages,
  label,
  previous = "← Previous page",
  next = "Next page →",
  showEnds = false,
  without = [],
}: {
  page: number;
  pages: number;
  /** The nav's accessible name, e.g. "Pages of coupons". */
  label: string;
  previous?: string;
  next?: string;
  /** Show "previous" and "next" as plain text on the first and last page (instead of leaving the place empty). */
  showEnds?: boolean;
  /** Parameters left out of the links: a notice said once (`deleted=`, `created=`) is not said again on page 2. */
  without?: readonly string[];
}) {
  const [params] = useSearchParams();
  if (pages <= 1) return null;
  const link = (n: number) => {
    const p = new URLSearchParams(params);
    for (const name of without) p.delete(name);
    if (n === 1) p.delete("page");
    else p.set("page", String(n));
    const s = p.toString();
    return s ? `?${s}` : "?";
  };
  const end = (text: string) => (showEnds ? <span className="console-muted">{text}</span> : <span />);
  return (
    <nav className="console-pager" aria-label={label}>
      {page > 1 ? <Link to={link(page - 1)}>{previous}</Link> : end(previous)}
      <span className="console-muted">{`Page ${page} of ${pages}`}</span>
      {page < pages ? <Link to={link(page + 1)}>{next}</Link> : end(next)}
    </nav>
  );
}
