import { Link } from "react-router";
import { consoleSearch } from "#worker/reports";
import { FilterBar, SearchField } from "#web/components/console/filter-bar";
import { groupedHits } from "#web/components/console/search/search-box";
import { consoleMeta } from "#web/components/console/title";
import { EmptyState, PageHead } from "#web/components/ui/page";
import { consoleHeaders, staffOnly } from "#web/console.server";
import type { Route } from "./+types/search";

export const meta = consoleMeta("Search — Console");

export const headers = () => consoleHeaders;

/** Products, orders, customers and collections matching `q`, five of each: one D1 round trip. */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) =>
  consoleSearch(context.services, new URL(request.url).searchParams.get("q") ?? ""),
);

/** The console's search page: what the header's search box shows without JavaScript, grouped by kind. */
export default function ConsoleSearch({ loaderData }: Route.ComponentProps) {
  const groups = groupedHits(loaderData);
  return (
    <div className="console-search-page">
      <PageHead title="Search" />
      <FilterBar label="Search the console" search submit="Search" clearTo={null}>
        <SearchField
          key={loaderData.q}
          id="console-search-q"
          className="console-search-field"
          defaultValue={loaderData.q}
          placeholder="Order number, email, product or collection"
          maxLength={100}
        />
      </FilterBar>
      {!loaderData.q ? (
        <EmptyState>Type an order number, an email, a product or a collection name.</EmptyState>
      ) : groups.length === 0 ? (
        <EmptyState>Nothing found for “{loaderData.q}”.</EmptyState>
      ) : (
        groups.map((g) => (
          <section key={g.kind} aria-labelledby={`search-${g.kind}`}>
            <h2 id={`search-${g.kind}`}>{g.label}</h2>
            <ul>
              {g.hits.map((hit) => (
                <li key={hit.href}>
                  <Link to={hit.href}>{hit.title}</Link>
                  <span className="console-muted">{hit.subtitle}</span>
                </li>
              ))}
            </ul>
          </section>
        ))
      )}
    </div>
  );
}
