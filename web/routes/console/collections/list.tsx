import { Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { useSlashToSearch } from "#web/components/console/filter-bar";
import { Badge } from "#web/components/console/badge";
import { COLLECTION_SORTS, listConsoleCollections, readCollectionFilters } from "#web/components/console/collections/collections.server";
import { Pager } from "#web/components/console/pager";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-collections.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/list";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Collections — Console") }];
}

export const headers = () => consoleHeaders;

/** One page of collections for the search and sort in the URL, hidden ones included (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const filters = readCollectionFilters(url);
  const deleted = (url.searchParams.get("deleted") ?? "").slice(0, 100);
  return {
    filters,
    deleted,
    sorts: Object.entries(COLLECTION_SORTS).map(([value, s]) => [value, s.label] as const),
    ...(await listConsoleCollections(context.services, filters)),
  };
}

export default function ConsoleCollections({ loaderData }: Route.ComponentProps) {
  const { filters, rows, total, pages, sorts, deleted } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canWrite = !!user?.permissions.includes("catalog.write");
  const navigation = useNavigation();
  const search = useSlashToSearch();
  return (
    <>
      <div className="collections-head">
        <h1>Collections</h1>
        {canWrite && (
          <Link to="/console/collections/new" className="console-button primary">
            New collection
          </Link>
        )}
      </div>
      {deleted && (
        <p className="console-notice" role="status">
          Deleted the collection “{deleted}”.
        </p>
      )}
      <Form method="get" className="console-toolbar" role="search" aria-label="Find collections">
        <div className="console-field collections-search">
          <label htmlFor="collections-q">Name starts with</label>
          <input id="collections-q" ref={search} type="search" name="q" defaultValue={filters.q} aria-keyshortcuts="/" maxLength={100} />
        </div>
        <div className="console-field">
          <label htmlFor="collections-sort">Sort</label>
          <select id="collections-sort" name="sort" defaultValue={filters.sort}>
            {sorts.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
        <div className="console-actions">
          <button type="submit" className="console-button" disabled={navigation.state === "loading"}>
            Search
          </button>
          {filters.q && (
            <Link to="/console/collections" className="console-button">
              Clear
            </Link>
          )}
        </div>
      </Form>

      <p className="console-muted" role="status">
        {total === 0
          ? filters.q
            ? "No collections match this search."
            : "No collections yet."
          : `${total} ${total === 1 ? "collection" : "collections"}${filters.q ? " match" : ""}; page ${filters.page} of ${pages}.`}
      </p>
      {rows.length > 0 && (
        <div className="console-scroll">
          <table className="console-table collections-table">
            <caption className="visually-hidden">Collections{filters.q ? " matching the search" : ""}</caption>
            <thead>
              <tr>
                <th scope="col">
                  <span className="visually-hidden">Image</span>
                </th>
                <th scope="col">Collection</th>
                <th scope="col">Slug</th>
                <th scope="col" className="num">
                  Products in the shop
                </th>
                <th scope="col">Visibility</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id}>
                  <td>
                    {c.image ? (
                      <img src={c.image} alt="" width={44} height={44} loading="lazy" decoding="async" />
                    ) : (
                      <span className="collections-noimage" aria-hidden="true" />
                    )}
                  </td>
                  <th scope="row">
                    {c.builtIn ? (
                      <>
                        <span className="collections-name">{c.name}</span> <Badge>Built in</Badge>
                        <div className="console-muted">Always holds every product; it cannot be edited or deleted.</div>
                      </>
                    ) : (
                      <Link to={`/console/collections/${c.id}`} className="collections-name" prefetch="intent">
                        {c.name}
                      </Link>
                    )}
                  </th>
                  <td>
                    {c.visible ? (
                      <a href={`/collections/${c.slug}`} target="_blank" rel="noopener">
                        /collections/{c.slug}
                      </a>
                    ) : (
                      <span className="console-muted">/collections/{c.slug}</span>
                    )}
                  </td>
                  <td className="num">{c.products}</td>
                  <td>{c.visible ? "Visible" : <Badge>Hidden</Badge>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={filters.page} pages={pages} label="Pages of collections" without={["deleted"]} />
    </>
  );
}
