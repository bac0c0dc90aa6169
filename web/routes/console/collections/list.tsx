import { Form, Link, useNavigation } from "react-router";
import { Badge } from "#web/components/console/badge";
import {
  COLLECTION_SORTS,
  listConsoleCollections,
  readCollectionFilters,
  type ConsoleCollectionRow,
} from "#web/components/console/collections/collections.server";
import { Thumb } from "#web/components/console/collections/members";
import { SearchField } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { consoleMeta } from "#web/components/console/title";
import { Select } from "#web/components/ui/form";
import { Notice, PageHead, useCreateLink } from "#web/components/ui/page";
import { type Column, DataTable, ListStatus } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-collections.css";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Collections — Console");

/** One page of collections for the search and sort in the URL, hidden ones included (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const url = new URL(request.url);
  const filters = readCollectionFilters(url);
  const deleted = (url.searchParams.get("deleted") ?? "").slice(0, 100);
  return {
    filters,
    deleted,
    sorts: Object.entries(COLLECTION_SORTS).map(([value, s]) => [value, s.label] as const),
    ...(await listConsoleCollections(context.services, filters)),
  };
});

/** A collection's name: a link to its page, or for the built-in one, why it has none. */
function NameCell({ row: c }: { row: ConsoleCollectionRow }) {
  if (!c.builtIn)
    return (
      <Link to={`/console/collections/${c.id}`} className="collections-name" prefetch="intent">
        {c.name}
      </Link>
    );
  return (
    <>
      <span className="collections-name">{c.name}</span> <Badge>Built in</Badge>
      <div className="console-muted">Always holds every product; it cannot be edited or deleted.</div>
    </>
  );
}

const COLUMNS: Column<ConsoleCollectionRow>[] = [
  { header: <span className="visually-hidden">Image</span>, cell: (c) => <Thumb src={c.image} /> },
  { header: "Collection", rowHeader: true, cell: (c) => <NameCell row={c} /> },
  {
    header: "Slug",
    cell: (c) =>
      c.visible ? (
        <a href={`/collections/${c.slug}`} target="_blank" rel="noopener">
          /collections/{c.slug}
        </a>
      ) : (
        <span className="console-muted">/collections/{c.slug}</span>
      ),
  },
  { header: "Products in the shop", num: true, cell: (c) => c.products },
  { header: "Visibility", cell: (c) => (c.visible ? "Visible" : <Badge>Hidden</Badge>) },
];

export default function ConsoleCollections({ loaderData }: Route.ComponentProps) {
  const { filters, rows, total, pages, sorts, deleted } = loaderData;
  const navigation = useNavigation();
  const newLink = useCreateLink("catalog.write", "/console/collections/new", "New collection");
  return (
    <>
      <PageHead title="Collections" actions={newLink} />
      <Notice text={deleted ? `Deleted the collection “${deleted}”.` : null} />
      <Form method="get" className="console-toolbar" role="search" aria-label="Find collections">
        <SearchField id="collections-q" label="Name starts with" className="collections-search" defaultValue={filters.q} maxLength={100} />
        <Select id="collections-sort" name="sort" label="Sort" options={sorts} defaultValue={filters.sort} />
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
      <ListStatus>
        {total === 0
          ? filters.q
            ? "No collections match this search."
            : "No collections yet."
          : `${total} ${total === 1 ? "collection" : "collections"}${filters.q ? " match" : ""}; page ${filters.page} of ${pages}.`}
      </ListStatus>
      <DataTable
        caption={`Collections${filters.q ? " matching the search" : ""}`}
        rows={rows}
        rowKey={(c) => c.id}
        columns={COLUMNS}
        className="collections-table"
      />
      <Pager page={filters.page} pages={pages} label="Pages of collections" without={["deleted"]} />
    </>
  );
}
