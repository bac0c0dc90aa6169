import { Form, Link, useNavigation, useSearchParams } from "react-router";
import { SearchField } from "#web/components/console/filter-bar";
import { BulkBar } from "#web/components/console/bulk-bar";
import { bulkAction, openBulkResult } from "#web/components/console/bulk.server";
import { Field, Select } from "#web/components/ui/form";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { DataTable, ListStatus } from "#web/components/ui/table";
import { Pager } from "#web/components/console/pager";
import { PRODUCT_SORT_LABELS } from "#web/components/console/products";
import { ProductsCsvLinks } from "#web/components/console/products-csv";
import { listConsoleProducts, readProductFilters } from "#web/components/console/products.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-products.css";
import type { Route } from "./+types/list";
import { COLUMNS, tick } from "#web/components/console/product-list-columns";

export const meta = consoleMeta("Products — Console");

/** One page of the catalogue for the filters in the URL, hidden products included (3 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { filters, fields } = readProductFilters(new URL(request.url));
  return { filters, fields, bulk: await openBulkResult(request), ...(await listConsoleProducts(context.services, filters)) };
});

/** Bulk edits of the ticked rows or of everything the filter matches (web/components/console/bulk.server.ts). */
export async function action({ context, request }: Route.ActionArgs) {
  return bulkAction(context, request);
}

const FILTERS = ["q", "collection", "stock", "visibility", "brand", "ribbon", "min", "max"] as const;

export default function ConsoleProducts({ loaderData }: Route.ComponentProps) {
  const { filters, fields, rows, total, pages, choices, bulk } = loaderData;
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const canWrite = useCan("catalog.write");
  const filtered = FILTERS.some((f) => !!filters[f]);
  const any = (id: string, name: string, label: string, value: string, options: [string, string][]) => (
    <Select id={id} name={name} label={label} defaultValue={value} placeholder="Any" options={options} />
  );
  const price = (name: "min" | "max", label: string) => (
    <Field
      id={`products-${name}`}
      name={name}
      label={label}
      className="products-price"
      inputMode="decimal"
      defaultValue={params.get(name) ?? ""}
      maxLength={20}
      error={fields[name]}
    />
  );
  return (
    <>
      <PageHead
        title="Products"
        actions={
          canWrite && (
            <Link to="/console/products/new" className="console-button primary">
              New product
            </Link>
          )
        }
      />
      <Notice text={params.get("deleted") && `Deleted “${params.get("deleted")}”.`} />
      <Form method="get" className="console-toolbar products-filters" role="search" aria-label="Find products">
        <SearchField
          id="products-q"
          className="products-search"
          defaultValue={filters.q}
          placeholder="Name, description, SKU, brand"
          maxLength={200}
        />
        {any(
          "products-collection",
          "collection",
          "Collection",
          filters.collection,
          choices.collections.map((c) => [c.id, c.name]),
        )}
        {any("products-stock", "stock", "Stock", filters.stock, [
          ["in", "In stock"],
          ["out", "Out of stock"],
        ])}
        {any("products-visibility", "visibility", "Visibility", filters.visibility, [
          ["visible", "Visible in the shop"],
          ["hidden", "Hidden"],
        ])}
        {any(
          "products-brand",
          "brand",
          "Brand",
          filters.brand,
          choices.brands.map((b) => [b, b]),
        )}
        {any(
          "products-ribbon",
          "ribbon",
          "Ribbon",
          filters.ribbon,
          choices.ribbons.map((r) => [r, r]),
        )}
        {price("min", "Price from")}
        {price("max", "to")}
        <Select id="products-sort" name="sort" label="Sort" defaultValue={filters.sort} options={Object.entries(PRODUCT_SORT_LABELS)} />
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={navigation.state === "loading"}>
            Show products
          </button>
          {filtered && (
            <Link to="/console/products" className="console-button">
              Clear
            </Link>
          )}
          <ProductsCsvLinks />
        </div>
      </Form>
      <ListStatus>
        {total === 0
          ? filtered
            ? "No products match these filters."
            : "No products yet."
          : `${total} ${total === 1 ? "product" : "products"}${filtered ? " match" : ""}; page ${filters.page} of ${pages}.`}
      </ListStatus>
      {canWrite && (rows.length > 0 || bulk) && (
        <BulkBar rows={rows} total={total} filtered={filtered} collections={choices.collections} result={bulk} />
      )}
      <DataTable
        caption={`Products${filtered ? " matching the filters" : ""}`}
        className="products-table"
        rows={rows}
        rowKey={(p) => p.id}
        columns={canWrite ? [tick(rows.length), ...COLUMNS] : COLUMNS}
      />
      <Pager page={filters.page} pages={pages} label="Pages of products" />
    </>
  );
}
