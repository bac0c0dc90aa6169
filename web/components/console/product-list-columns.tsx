import { Link } from "react-router";
import { Badge } from "#web/components/console/badge";
import { BulkRowCheckbox, BulkSelectAll } from "#web/components/console/bulk-bar";
import type { Column } from "#web/components/ui/table";
import type { ConsoleProductRow } from "#web/components/console/products.server";

/** The table's columns after the tick column: image, product (name, SKU, address, media), price, stock and more. */
export const COLUMNS: Column<ConsoleProductRow>[] = [
  {
    header: <span className="visually-hidden">Image</span>,
    cell: (p) =>
      p.image ? (
        <img src={p.image.url} alt={p.image.alt} width={44} height={44} loading="lazy" decoding="async" />
      ) : (
        <span className="products-noimage" aria-hidden="true" />
      ),
  },
  {
    header: "Product",
    rowHeader: true,
    cell: (p) => (
      <>
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
      </>
    ),
  },
  { header: "Price", cell: (p) => p.price },
  {
    header: "Stock",
    cell: (p) => (
      <Link to={`/console/inventory/${p.id}`} className="products-stock" aria-label={`Stock of ${p.name}: ${p.stock.text}`}>
        <Badge tone={p.stock.tone}>{p.stock.text}</Badge>
      </Link>
    ),
  },
  { header: "Variants", num: true, cell: (p) => p.variants },
  { header: "Brand", cell: (p) => p.brand || <span className="console-muted">—</span> },
  { header: "Ribbon", cell: (p) => p.ribbon || <span className="console-muted">—</span> },
  { header: "Visibility", cell: (p) => (p.visible ? "Visible" : <Badge>Hidden</Badge>) },
];

/** The tick column of someone who may bulk-edit: a tick per row, and one for the page's `count` rows. */
export const tick = (count: number): Column<ConsoleProductRow> => ({
  header: <BulkSelectAll count={count} />,
  headerClassName: "bulk-cell",
  className: "bulk-cell",
  cell: (p) => <BulkRowCheckbox id={p.id} name={p.name} />,
});
