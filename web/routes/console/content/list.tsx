import { contentOverview } from "#web/components/console/content/content.server";
import { consoleMeta } from "#web/components/console/title";
import { EmptyState, Notice, PageHead, useCreateLink } from "#web/components/ui/page";
import { type Column, DataTable, linkColumn } from "#web/components/ui/table";
import { consoleHeaders, staffOnly } from "#web/console.server";
import type { Route } from "./+types/list";

export const meta = consoleMeta("Content — Console");

export const headers = () => consoleHeaders;

/** The shop's content pages and menus (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const deleted = (new URL(request.url).searchParams.get("deleted") ?? "").slice(0, 200);
  return { deleted, ...(await contentOverview(context.services)) };
});

type Data = Awaited<ReturnType<typeof loader>>;

const PAGE_COLUMNS: Column<Data["pages"][number]>[] = [
  linkColumn(
    "Page",
    (p) => `/console/content/pages/${p.id}`,
    (p) => p.title,
    { prefetch: "intent" },
  ),
  {
    header: "Address",
    cell: (p) => (
      <a href={`/pages/${p.slug}`} target="_blank" rel="noopener">
        /pages/{p.slug}
      </a>
    ),
  },
  { header: "Last changed", cell: (p) => new Date(p.updated).toLocaleDateString("en-US", { dateStyle: "medium", timeZone: "UTC" }) },
];

const MENU_COLUMNS: Column<Data["menus"][number]>[] = [
  linkColumn(
    "Menu",
    (m) => `/console/content/menus/${m.slug}`,
    (m) => m.title,
    { prefetch: "intent" },
  ),
  { header: "Where", cell: (m) => m.where },
  { header: "Links", num: true, cell: (m) => m.count },
];

export default function ConsoleContent({ loaderData }: Route.ComponentProps) {
  const { pages, menus, deleted } = loaderData;
  const newLink = useCreateLink("cms.write", "/console/content/pages/new", "New page");
  return (
    <>
      <PageHead title="Content" actions={newLink} />
      <Notice text={deleted ? `Deleted the page “${deleted}”.` : null} />
      <section aria-labelledby="content-pages-heading">
        <h2 id="content-pages-heading">Pages</h2>
        {pages.length ? (
          <DataTable caption="Content pages" rows={pages} rowKey={(p) => p.id} columns={PAGE_COLUMNS} />
        ) : (
          <EmptyState action={newLink}>No pages yet: about, shipping and returns, privacy and terms pages go here.</EmptyState>
        )}
      </section>
      <section aria-labelledby="content-menus-heading">
        <h2 id="content-menus-heading">Menus</h2>
        <DataTable caption="Menus" rows={menus} rowKey={(m) => m.slug} columns={MENU_COLUMNS} />
      </section>
    </>
  );
}
