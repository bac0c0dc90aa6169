import { useEffect, useRef } from "react";
import { Form, useFetcher, useNavigation } from "react-router";
import { Badge } from "#web/components/console/badge";
import { Field } from "#web/components/ui/form";
import { ListStatus } from "#web/components/ui/table";
import type { CollectionProductRow, PickerMatches } from "./collections.server";
import { RowProblem, Thumb } from "./members";

/**
 * The product picker: a GET search (kept in the URL as `find`, so it works without JavaScript and survives a
 * reload) listing matching products, each with an Add button posted by a fetcher (no page reload with JavaScript).
 */
export function Picker({ find, picker, page }: { find: string; picker: PickerMatches | null; page: number }) {
  const navigation = useNavigation();
  return (
    <section aria-labelledby="collection-picker-heading">
      <h2 id="collection-picker-heading">Add products</h2>
      <Form method="get" className="console-toolbar" role="search" aria-label="Find products to add">
        {page > 1 && <input type="hidden" name="page" value={page} />}
        <Field
          id="picker-find"
          name="find"
          type="search"
          label="Find products by name, SKU or brand"
          className="collections-search"
          defaultValue={find}
          maxLength={200}
        />
        <div className="console-actions">
          <button type="submit" className="console-button" disabled={navigation.state === "loading"}>
            Find
          </button>
        </div>
      </Form>
      {picker && (
        <>
          <ListStatus>
            {picker.total === 0
              ? `No products match “${find}”.`
              : picker.total > picker.rows.length
                ? `${picker.total} products match; the best ${picker.rows.length} are shown. Add words to narrow the search.`
                : `${picker.total} ${picker.total === 1 ? "product matches" : "products match"}.`}
          </ListStatus>
          {picker.rows.length > 0 && (
            <ul className="collection-picker" aria-label="Matching products">
              {picker.rows.map((p) => (
                <PickerRow key={p.id} product={p} />
              ))}
            </ul>
          )}
        </>
      )}
    </section>
  );
}

function PickerRow({ product: p }: { product: CollectionProductRow & { inCollection: boolean } }) {
  const fetcher = useFetcher();
  const adding = fetcher.state !== "idle";
  const refused = !!(fetcher.data && typeof fetcher.data === "object" && "problem" in fetcher.data && fetcher.data.problem);
  // Optimistic: once posted, the product counts as added unless the answer says otherwise.
  const added = p.inCollection || (adding && !refused);
  // The Add button gives way to the badge: the keyboard focus moves onto it rather than being lost.
  const badge = useRef<HTMLSpanElement>(null);
  const posted = useRef(false);
  useEffect(() => {
    if (added && posted.current) badge.current?.focus();
  }, [added]);
  return (
    <li>
      <Thumb src={p.image} />
      <span className="collection-picker-name">
        {p.name}
        {!p.visible && (
          <>
            {" "}
            <Badge>Hidden</Badge>
          </>
        )}
      </span>
      {added ? (
        <span className="console-badge good" tabIndex={-1} ref={badge}>
          {adding ? "Adding…" : "In this collection"}
        </span>
      ) : (
        <fetcher.Form method="post" onSubmit={() => (posted.current = true)}>
          <input type="hidden" name="intent" value="add" />
          <input type="hidden" name="productId" value={p.id} />
          <input type="hidden" name="productName" value={p.name} />
          <button type="submit" className="console-button" aria-label={`Add ${p.name}`}>
            Add
          </button>
        </fetcher.Form>
      )}
      <RowProblem data={fetcher.data} />
    </li>
  );
}
