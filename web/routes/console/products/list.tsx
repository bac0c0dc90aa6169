import { Form, Link, useNavigation, useRouteLoaderData, useSearchParams } from "react-router";
import { useSlashToSearch } from "#web/components/console/filter-bar";
import { Badge } from "#web/components/console/badge";
import { BulkBar, BulkRowCheckbox, BulkSelectAll } from "#web/components/console/bulk-bar";
import { bulkAction, openBulkResult } from "#web/components/console/bulk.server";
import { FieldError } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { PRODUCT_SORT_LABELS } from "#web/components/console/products";
import { ProductsCsvLinks } from "#web/components/console/products-csv";
import { listConsoleProducts, readProductFilters } from "#web/components/console/products.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-products.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/list";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Products — Console") }];
}

export const headers = () => consoleHeaders;

/** One page of the catalogue for the filters in the URL, hidden products included (3 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const { filters, fields } = readProductFilters(new URL(request.url));
  return { filters, fields, bulk: await openBulkResult(request), ...(await listConsoleProducts(context.services, filters)) };
}

/** Bulk edits of the ticked rows or of everything the filter matches (web/components/console/bulk.server.ts). */
export async function action({ context, request }: Route.ActionArgs) {
  return bulkAction(context, request);
}

export default function ConsoleProducts({ loaderData }: Route.ComponentProps) {
  const { filters, fields, rows, total, pages, choices, bulk } = loaderData;
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const search = useSlashToSearch();
  const filtered = !!(
    filters.q ||
    filters.collection ||
    filters.stock ||
    filters.visibility ||
    filters.brand ||
    filters.ribbon ||
    filters.min ||
    filters.max
  );
  const select = (id: string, name: string, label: string, value: string, options: [string, string][]) => (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      <select id={id} name={name} defaultValue={value}>
        <option value="">Any</option>
        {options.map(([v, text]) => (
          <option key={v} value={v}>
            {text}
          </option>
        ))}
      </select>
    </div>
  );
  const priceInput = (name: "min" | "max", label: string) => (
    <div className="console-field products-price">
      <label htmlFor={`products-${name}`}>{label}</label>
      <input
        id={`products-${name}`}
        name={name}
        inputMode="decimal"
        defaultValue={params.get(name) ?? ""}
        maxLength={20}
        aria-invalid={fields[name] ? true : undefined}
        aria-describedby={fields[name] ? `products-${name}-error` : undefined}
      />
      <FieldError id={`products-${name}-error`} message={fields[name]} />
    </div>
  );
  const canWrite = !!useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user.permissions.includes("catalog.write");
  return (
    <>
      <div className="products-heading">
        <h1>Products</h1>
        {canWrite && (
          <Link to="/console/products/new" className="console-button primary">
            New product
          </Link>
        )}
      </div>
      {params.get("deleted") && (
        <p className="console-notice" role="status">
          {`Deleted “${params.get("deleted")}”.`}
        </p>
      )}
      <Form method="get" className="console-toolbar products-filters" role="search" aria-label="Find products">
        <div className="console-field products-search">
          <label htmlFor="products-q">Search</label>
          <input
            id="products-q"
            ref={search}
            type="search"
            name="q"
            defaultValue={filters.q}
            placeholder="Name, description, SKU, brand"
            aria-keyshortcuts="/"
            maxLength={200}
          />
        </div>
        {select(
          "products-collection",
          "collection",
          "Collection",
          filters.collection,
          choices.collections.map((c) => [c.id, c.name]),
        )}
        {select("products-stock", "stock", "Stock", filters.stock, [
          ["in", "In stock"],
          ["out", "Out of stock"],
        ])}
        {select("products-visibility", "visibility", "Visibility", filters.visibility, [
          ["visible", "Visible in the shop"],
          ["hidden", "Hidden"],
        ])}
        {select(
          "products-brand",
          "brand",
          "Brand",
          filters.brand,
          choices.brands.map((b) => [b, b]),
        )}
        {select(
          "products-ribbon",
          "ribbon",
          "Ribbon",
          filters.ribbon,
          choices.ribbons.map((r) => [r, r]),
        )}
        {priceInput("min", "Price from")}
        {priceInput("max", "to")}
        <div className="console-field">
          <label htmlFor="products-sort">Sort</label>
          <select id="products-sort" name="sort" defaultValue={filters.sort}>
            {Object.entries(PRODUCT_SORT_LABELS).map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </div>
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

      <p className="console-muted" role="status">
        {total === 0
          ? filtered
            ? "No products match these filters."
            : "No products yet."
          : `${total} ${total === 1 ? "product" : "products"}${filtered ? " match" : ""}; page ${filters.page} of ${pages}.`}
      </p>
      {canWrite && (rows.length > 0 || bulk) && (
        <BulkBar rows={rows} total={total} filtered={filtered} collections={choices.collections} result={bulk} />
      )}
      {rows.length > 0 && (
        <div className="console-scroll">
          <table className="console-table products-table">
            <caption className="visually-hidden">Products{filtered ? " matching the filters" : ""}</caption>
            <thead>
              <tr>
                {canWrite && (
                  <th scope="col" className="bulk-cell">
                    <BulkSelectAll count={rows.length} />
                  </th>
                )}
                <th scope="col">
                  <span className="visually-hidden">Image</span>
                </th>
                <th scope="col">Product</th>
                <th scope="col">Price</th>
                <th scope="col">Stock</th>
                <th scope="col" className="num">
                  Variants
                </th>
                <th scope="col">Brand</th>
                <th scope="col">Ribbon</th>
                <th scope="col">Visibility</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((p) => (
                <tr key={p.id}>
                  {canWrite && (
                    <td className="bulk-cell">
                      <BulkRowCheckbox id={p.id} name={p.name} />
                    </td>
                  )}
                  <td>
                    {p.image ? (
                      <img src={p.image.url} alt={p.image.alt} width={44} height={44} loading="lazy" decoding="async" />
                    ) : (
                      <span className="products-noimage" aria-hidden="true" />
                    )}
                  </td>
                  <th scope="row">
                    <Link to={`/console/products/${p.id}`} className="products-name">
                      {p.name}
                    </Link>
                    <div className="console-muted">
                      {p.sku ? `SKU ${p.sku} · ` : ""}
                      {p.visible ? (
                        <a href={`/products/${p.slug}`} target="_blank" rel="noopener">
                          /products/{p.slug}
                        </a>
                      ) : (
                        `/products/${p.slug}`
                      )}
                      {" · "}
                      <Link to={`/console/products/${p.id}/media`}>
                        Media<span className="visually-hidden"> of {p.name}</span>
                      </Link>
                    </div>
                  </th>
                  <td>{p.price}</td>
                  <td>
                    <Link to={`/console/inventory/${p.id}`} className="products-stock" aria-label={`Stock of ${p.name}: ${p.stock.text}`}>
                      <Badge tone={p.stock.tone}>{p.stock.text}</Badge>
                    </Link>
                  </td>
                  <td className="num">{p.variants}</td>
                  <td>{p.brand || <span className="console-muted">—</span>}</td>
                  <td>{p.ribbon || <span className="console-muted">—</span>}</td>
                  <td>{p.visible ? "Visible" : <Badge>Hidden</Badge>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={filters.page} pages={pages} label="Pages of products" />
    </>
  );
}
