import { Link, useFetcher, useFetchers } from "react-router";
import { Badge } from "#web/components/console/badge";
import { Pager } from "#web/components/console/pager";
import type { Problem } from "#web/components/ui/form";
import { type Column, DataTable, ListStatus } from "#web/components/ui/table";
import type { CollectionProductRow } from "./collections.server";

/** A product's or collection's small picture, or a grey square when it has none. */
export function Thumb({ src }: { src: string | null }) {
  if (!src) return <span className="collections-noimage" aria-hidden="true" />;
  return <img src={src} alt="" width={44} height={44} loading="lazy" decoding="async" />;
}

/** A product's name linked to its editor, with its shop address under it. */
function ProductCell({ product: p }: { product: CollectionProductRow }) {
  return (
    <>
      <Link to={`/console/products/${p.id}`} className="collections-product">
        {p.name}
      </Link>
      <div className="console-muted">/products/{p.slug}</div>
    </>
  );
}

/** The error a refused add or remove shows beside its button. */
export function RowProblem({ data }: { data: unknown }) {
  const problem = data && typeof data === "object" && "problem" in data ? (data.problem as Problem | null) : null;
  if (!problem) return null;
  return (
    <p className="console-field-error" role="alert">
      {problem.message}
    </p>
  );
}

/** A member's Remove button, posted by a fetcher: the row hides at once and comes back if refused. */
function RemoveButton({ product: p }: { product: CollectionProductRow }) {
  const fetcher = useFetcher();
  return (
    <>
      <fetcher.Form
        method="post"
        // The row (and its focused button) goes at once: keep the keyboard in the list, at its heading.
        onSubmit={() => document.getElementById("collection-products-heading")?.focus()}
      >
        <input type="hidden" name="intent" value="remove" />
        <input type="hidden" name="productId" value={p.id} />
        <input type="hidden" name="productName" value={p.name} />
        <button type="submit" className="console-button" aria-label={`Remove ${p.name} from this collection`}>
          Remove
        </button>
      </fetcher.Form>
      <RowProblem data={fetcher.data} />
    </>
  );
}

const COLUMNS: Column<CollectionProductRow>[] = [
  { header: <span className="visually-hidden">Image</span>, cell: (p) => <Thumb src={p.image} /> },
  { header: "Product", rowHeader: true, cell: (p) => <ProductCell product={p} /> },
  { header: "Visibility", cell: (p) => (p.visible ? "Visible" : <Badge>Hidden</Badge>) },
];
const WRITE_COLUMNS: Column<CollectionProductRow>[] = [
  ...COLUMNS,
  { header: <span className="visually-hidden">Actions</span>, cell: (p) => <RemoveButton product={p} /> },
];

/** The collection's products, a page at a time, each with Remove for someone who may change the collection. */
export function Members({
  name,
  shown,
  members,
  total,
  page,
  pages,
  canWrite,
}: {
  name: string;
  /** How many of them shoppers see. */
  shown: number;
  members: CollectionProductRow[];
  total: number;
  page: number;
  pages: number;
  canWrite: boolean;
}) {
  const removing = new Set(
    useFetchers()
      .filter((f) => f.formData?.get("intent") === "remove")
      .map((f) => String(f.formData?.get("productId"))),
  );
  return (
    <section aria-labelledby="collection-products-heading">
      <h2 id="collection-products-heading" tabIndex={-1}>
        Products in this collection
      </h2>
      <ListStatus>
        {total === 0
          ? "No products yet."
          : `${total} ${total === 1 ? "product" : "products"} (${shown} visible in the shop)${pages > 1 ? `; page ${page} of ${pages}` : ""}.`}
      </ListStatus>
      <DataTable
        caption={`Products in ${name}`}
        rows={members}
        rowKey={(p) => p.id}
        columns={canWrite ? WRITE_COLUMNS : COLUMNS}
        className="collections-table"
        rowHidden={(p) => removing.has(p.id)}
      />
      <Pager page={page} pages={pages} label="Pages of this collection's products" without={["created"]} />
    </section>
  );
}
