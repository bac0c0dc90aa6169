import { useEffect, useRef } from "react";
import { data, Form, Link, redirect, useActionData, useFetcher, useNavigation, useRouteLoaderData } from "react-router";
import {
  changeMembership,
  collectionPatchSchema,
  deleteCollection,
  getCollection,
  getCollectionWithProducts,
  updateCollection,
} from "#worker/catalog";
import { requirePermission } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { parseWith } from "#worker/platform/validation";
import { sameSiteUrl } from "#web/catalog.server";
import { Badge } from "#web/components/console/badge";
import { CollectionForm } from "#web/components/console/collections/form";
import {
  collectionFormRaw,
  collectionImage,
  collectionProblem,
  hasImageFile,
  pickerMatches,
  postedValues,
  type CollectionProductRow,
} from "#web/components/console/collections/collections.server";
import { AskFirstForm } from "#web/components/console/confirm";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-collections.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/edit";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.collection ? `${d.collection.name} — Collections — Console` : "Collection — Console") }];
}

export const headers = () => consoleHeaders;

const MEMBERS_PAGE = 25;
const PICKER_LIMIT = 10;

/**
 * One collection: its details, a page of its products and, when the picker has a search in the URL, the matching
 * products. Two D1 round trips besides the session: the collection with its page of members (one batch) and the
 * picker's product query, side by side.
 */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const url = new URL(request.url);
  const page = Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
  const find = (url.searchParams.get("find") ?? "").trim().slice(0, 200);
  if (params.id === ALL_PRODUCTS_COLLECTION_ID) {
    // The built-in collection holds every product without membership rows; there is nothing to edit.
    const c = await getCollection(ctx, { id: params.id });
    return { builtIn: true as const, collection: { id: c.id, name: c.name, slug: c.slug, visible: c.visible, numberOfProducts: c.numberOfProducts } };
  }
  try {
    const [detail, picker] = await Promise.all([
      getCollectionWithProducts(ctx, params.id, { limit: MEMBERS_PAGE, offset: (page - 1) * MEMBERS_PAGE }),
      find ? pickerMatches(ctx, params.id, find, PICKER_LIMIT) : null,
    ]);
    const c = detail.collection;
    const image = c.media.mainMedia ? sameSiteUrl(c.media.mainMedia.image.url, ctx.origin) : "";
    const members: CollectionProductRow[] = detail.products.map((p) => ({
      id: p.id,
      name: p.name,
      slug: p.slug,
      visible: p.visible,
      image: p.image ? sameSiteUrl(p.image, ctx.origin) : null,
    }));
    return {
      builtIn: false as const,
      collection: {
        id: c.id,
        name: c.name,
        slug: c.slug,
        description: c.description,
        visible: c.visible,
        image,
        updatedDate: c.updatedDate,
        numberOfProducts: c.numberOfProducts,
      },
      members,
      totalMembers: detail.totalProducts,
      page,
      pages: Math.max(1, Math.ceil(detail.totalProducts / MEMBERS_PAGE)),
      find,
      picker,
      created: url.searchParams.get("created") === "1",
    };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such collection.", { status: 404 });
    throw err;
  }
}

type ActionResult = {
  ok: string | null;
  intent: string;
  problem: Problem | null;
  values: Record<string, string> | null;
  confirmDelete?: boolean;
  productId?: string;
};

/**
 * Save the details, add or remove a product, delete: each through the catalogue's collection services, which refuse
 * staff without catalog.write (403) and bad input (400, nothing written). Deleting asks first: without
 * JavaScript the first press answers with a confirmation, and only a second press with `confirm=yes` deletes.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const id = params.id;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const productId = String(form.get("productId") ?? "").slice(0, 100);
  const productName = String(form.get("productName") ?? "").slice(0, 200) || "the product";
  try {
    switch (intent) {
      case "save": {
        const raw = collectionFormRaw(form);
        const patch = parseWith(collectionPatchSchema, {
          name: raw.name,
          slug: raw.slug,
          description: raw.description,
          visible: raw.visible,
          ...(raw.imageChanged ? { media: raw.imageUrl ? { url: raw.imageUrl } : null } : {}),
        });
        if (hasImageFile(form)) patch.media = await collectionImage(ctx, form, raw.imageUrl);
        const saved = await updateCollection(ctx, id, patch);
        return { ok: `Saved “${saved.name}”.`, intent, problem: null, values: null } satisfies ActionResult;
      }
      case "add":
        await changeMembership(ctx, id, [productId], "add");
        return { ok: `Added ${productName}.`, intent, problem: null, values: null, productId } satisfies ActionResult;
      case "remove":
        await changeMembership(ctx, id, [productId], "remove");
        return { ok: `Removed ${productName}.`, intent, problem: null, values: null, productId } satisfies ActionResult;
      case "delete": {
        if (form.get("confirm") !== "yes") {
          // Asking is only worth it for someone who may delete.
          requirePermission(ctx, "catalog.write");
          return { ok: null, intent, problem: null, values: null, confirmDelete: true } satisfies ActionResult;
        }
        await deleteCollection(ctx, id);
        const name = String(form.get("name") ?? "").slice(0, 100);
        return redirect(`/console/collections${name ? `?deleted=${encodeURIComponent(name)}` : ""}`);
      }
      default:
        throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    }
  } catch (err) {
    const problem = collectionProblem(err);
    const result: ActionResult = { ok: null, intent, problem, values: intent === "save" ? postedValues(form) : null, productId };
    return data(result, { status: problem.status ?? 400 });
  }
}

export default function ConsoleCollection({ loaderData }: Route.ComponentProps) {
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canWrite = !!user?.permissions.includes("catalog.write");
  if (loaderData.builtIn) {
    const c = loaderData.collection;
    return (
      <>
        <p>
          <Link to="/console/collections">← Collections</Link>
        </p>
        <h1>{c.name}</h1>
        <p className="console-notice" role="status">
          This collection is built in: it always holds every product ({c.numberOfProducts} in the shop) and cannot be edited or deleted.
        </p>
        <p>
          <Link to="/console/products">See all products</Link>
        </p>
      </>
    );
  }
  return <CollectionPage data={loaderData} canWrite={canWrite} />;
}

type PageData = Extract<Route.ComponentProps["loaderData"], { builtIn: false }>;

function CollectionPage({ data: d, canWrite }: { data: PageData; canWrite: boolean }) {
  const { collection: c, members, totalMembers, page, pages, find, picker, created } = d;
  const result = useActionData<typeof action>() as ActionResult | undefined;
  const navigation = useNavigation();
  // A save is done when the page's data has come back too, not when the action answers: only then is the form drawn
  // anew from the saved values (its key). "Saving…" and the notice last until then, so a file picked right after
  // "Saved" appears is not dropped by the new form.
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "save";
  const saveResult = result?.intent === "save" ? result : null;
  const otherResult = result && result.intent !== "save" && result.intent !== "delete" ? result : null;
  return (
    <>
      <p>
        <Link to="/console/collections">← Collections</Link>
      </p>
      <div className="collections-head">
        <h1>{c.name}</h1>
        {c.visible ? (
          <a href={`/collections/${c.slug}`} target="_blank" rel="noopener" className="console-button">
            View in the shop
          </a>
        ) : (
          <Badge>Hidden from shoppers</Badge>
        )}
      </div>
      {created && !result && (
        <p className="console-notice" role="status">
          Created “{c.name}”. Add its products below.
        </p>
      )}
      {result?.ok && !busy && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {(otherResult?.problem || (!canWrite && result?.problem)) && <ErrorSummary problem={otherResult?.problem ?? result?.problem} />}

      <section aria-labelledby="collection-details-heading">
        <h2 id="collection-details-heading">Details</h2>
        {canWrite ? (
          <CollectionForm
            // A saved change shows the stored values (the key changes with updatedDate); a refused one keeps what was typed.
            key={c.updatedDate}
            initial={{ name: c.name, slug: c.slug, description: c.description, imageUrl: c.image, visible: c.visible }}
            values={saveResult?.values}
            problem={saveResult?.problem}
            submitLabel="Save"
            busy={busy}
            slugHint="The collection's address in the shop, /collections/<slug>: lower-case letters, digits and dashes. Changing it breaks links to the old address."
          />
        ) : (
          <dl className="collection-facts">
            <dt>Slug</dt>
            <dd>/collections/{c.slug}</dd>
            <dt>Description</dt>
            <dd>{c.description || <span className="console-muted">None</span>}</dd>
            <dt>Image</dt>
            <dd>
              {c.image ? <img src={c.image} alt="The collection's image" width={120} height={120} /> : <span className="console-muted">None</span>}
            </dd>
          </dl>
        )}
      </section>

      <section aria-labelledby="collection-products-heading">
        <h2 id="collection-products-heading" tabIndex={-1}>
          Products in this collection
        </h2>
        <p className="console-muted" role="status">
          {totalMembers === 0
            ? "No products yet."
            : `${totalMembers} ${totalMembers === 1 ? "product" : "products"} (${c.numberOfProducts} visible in the shop)${pages > 1 ? `; page ${page} of ${pages}` : ""}.`}
        </p>
        {members.length > 0 && (
          <div className="console-scroll">
            <table className="console-table collections-table">
              <caption className="visually-hidden">Products in {c.name}</caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span className="visually-hidden">Image</span>
                  </th>
                  <th scope="col">Product</th>
                  <th scope="col">Visibility</th>
                  {canWrite && (
                    <th scope="col">
                      <span className="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {members.map((p) => (
                  <MemberRow key={p.id} product={p} canWrite={canWrite} />
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={page} pages={pages} label="Pages of this collection's products" without={["created"]} />
      </section>

      {canWrite && (
        <section aria-labelledby="collection-picker-heading">
          <h2 id="collection-picker-heading">Add products</h2>
          <Picker find={find} picker={picker} page={page} />
        </section>
      )}

      {canWrite && (
        <section aria-labelledby="collection-delete-heading" className="collection-danger">
          <h2 id="collection-delete-heading">Delete this collection</h2>
          <DeleteCollection name={c.name} confirming={!!result?.confirmDelete} problem={result?.intent === "delete" ? result.problem : null} />
        </section>
      )}
    </>
  );
}

/** A member with its Remove button; with JavaScript the row goes at once (a fetcher), and comes back if refused. */
function MemberRow({ product: p, canWrite }: { product: CollectionProductRow; canWrite: boolean }) {
  const fetcher = useFetcher<typeof action>();
  const removing = fetcher.state !== "idle";
  const problem = fetcher.data && "problem" in fetcher.data ? fetcher.data.problem : null;
  if (removing) return null;
  return (
    <tr>
      <td>
        {p.image ? (
          <img src={p.image} alt="" width={44} height={44} loading="lazy" decoding="async" />
        ) : (
          <span className="collections-noimage" aria-hidden="true" />
        )}
      </td>
      <th scope="row">
        <Link to={`/console/products/${p.id}`} className="collections-product">
          {p.name}
        </Link>
        <div className="console-muted">/products/{p.slug}</div>
      </th>
      <td>{p.visible ? "Visible" : <Badge>Hidden</Badge>}</td>
      {canWrite && (
        <td>
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
          {problem && (
            <p className="console-field-error" role="alert">
              {problem.message}
            </p>
          )}
        </td>
      )}
    </tr>
  );
}

/**
 * The product picker: a GET search (kept in the URL as `find`, so it works without JavaScript and survives a
 * reload) listing matching products, each with an Add button posted by a fetcher (no page reload with JavaScript).
 */
function Picker({ find, picker, page }: { find: string; picker: PageData["picker"]; page: number }) {
  const navigation = useNavigation();
  return (
    <>
      <Form method="get" className="console-toolbar" role="search" aria-label="Find products to add">
        {page > 1 && <input type="hidden" name="page" value={page} />}
        <div className="console-field collections-search">
          <label htmlFor="picker-find">Find products by name, SKU or brand</label>
          <input id="picker-find" type="search" name="find" defaultValue={find} maxLength={200} />
        </div>
        <div className="console-actions">
          <button type="submit" className="console-button" disabled={navigation.state === "loading"}>
            Find
          </button>
        </div>
      </Form>
      {picker && (
        <>
          <p className="console-muted" role="status">
            {picker.total === 0
              ? `No products match “${find}”.`
              : picker.total > picker.rows.length
                ? `${picker.total} products match; the best ${picker.rows.length} are shown. Add words to narrow the search.`
                : `${picker.total} ${picker.total === 1 ? "product matches" : "products match"}.`}
          </p>
          {picker.rows.length > 0 && (
            <ul className="collection-picker" aria-label="Matching products">
              {picker.rows.map((p) => (
                <PickerRow key={p.id} product={p} />
              ))}
            </ul>
          )}
        </>
      )}
    </>
  );
}

function PickerRow({ product: p }: { product: CollectionProductRow & { inCollection: boolean } }) {
  const fetcher = useFetcher<typeof action>();
  const adding = fetcher.state !== "idle";
  const problem = fetcher.data && "problem" in fetcher.data ? fetcher.data.problem : null;
  // Optimistic: once posted, the product counts as added unless the answer says otherwise.
  const added = p.inCollection || (adding && !problem);
  // The Add button gives way to the badge: the keyboard focus moves onto it rather than being lost.
  const badge = useRef<HTMLSpanElement>(null);
  const posted = useRef(false);
  useEffect(() => {
    if (added && posted.current) badge.current?.focus();
  }, [added]);
  return (
    <li>
      {p.image ? (
        <img src={p.image} alt="" width={44} height={44} loading="lazy" decoding="async" />
      ) : (
        <span className="collections-noimage" aria-hidden="true" />
      )}
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
      {problem && (
        <p className="console-field-error" role="alert">
          {problem.message}
        </p>
      )}
    </li>
  );
}

/**
 * Delete with a confirmation. With JavaScript the browser's own confirm dialog asks; without it, the first press
 * comes back with a confirmation form (`confirming`) whose button sends `confirm=yes`.
 */
function DeleteCollection({ name, confirming, problem }: { name: string; confirming: boolean; problem: Problem | null | undefined }) {
  const confirmButton = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (confirming) confirmButton.current?.focus();
  }, [confirming]);
  return (
    <>
      <ErrorSummary problem={problem} />
      {confirming ? (
        <div className="console-error collection-confirm" role="alert">
          <p>Delete “{name}”? Its products stay in the shop; only the collection and its page go. This cannot be undone.</p>
          <div className="console-actions">
            <Form method="post">
              <input type="hidden" name="intent" value="delete" />
              <input type="hidden" name="confirm" value="yes" />
              <input type="hidden" name="name" value={name} />
              <button type="submit" className="console-button danger" ref={confirmButton}>
                Yes, delete “{name}”
              </button>
            </Form>
            <Link to="." className="console-button" replace>
              Keep it
            </Link>
          </div>
        </div>
      ) : (
        <AskFirstForm question={`Delete the collection “${name}”? Its products stay in the shop. This cannot be undone.`}>
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="confirm" defaultValue="" />
          <input type="hidden" name="name" value={name} />
          <p className="console-muted">The products stay in the shop; only the collection and its page go.</p>
          <button type="submit" className="console-button danger">
            Delete collection
          </button>
        </AskFirstForm>
      )}
    </>
  );
}
