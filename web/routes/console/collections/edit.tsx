import { Link, useNavigation } from "react-router";
import { Badge } from "#web/components/console/badge";
import { collectionPage } from "#web/components/console/collections/collections.server";
import { DeleteCollection } from "#web/components/console/collections/delete";
import { CollectionForm } from "#web/components/console/collections/form";
import { Members } from "#web/components/console/collections/members";
import { Picker } from "#web/components/console/collections/picker";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary } from "#web/components/ui/form";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-collections.css";
import type { Route } from "./+types/edit";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.collection ? `${d.collection.name} — Collections — Console` : "Collection — Console",
);

/** One collection, a page of its products and the picker's matches (2 D1 round trips besides the session). */
export const loader = staffOnly(async ({ context, request, params }: Route.LoaderArgs) => {
  return collectionPage(context.services, params.id, new URL(request.url));
});

/**
 * Save the details, add or remove a product, delete: each through the catalogue's collection services, which refuse
 * staff without catalog.write (403) and bad input (400, nothing written). Deleting asks first: without
 * JavaScript the first press answers with a confirmation, and only a second press with `confirm=yes` deletes.
 */
export { collectionAction as action } from "./edit.server";
import type { ActionResult } from "./edit.server";

const SLUG_HINT =
  "The collection's address in the shop, /collections/<slug>: lower-case letters, digits and dashes. Changing it breaks links to the old address.";

export default function ConsoleCollection({ loaderData, actionData }: Route.ComponentProps) {
  const canWrite = useCan("catalog.write");
  const navigation = useNavigation();
  if (loaderData.builtIn) {
    const c = loaderData.collection;
    return (
      <>
        <PageHead title={c.name} back={["/console/collections", "Collections"]} />
        <Notice
          text={`This collection is built in: it always holds every product (${c.numberOfProducts} in the shop) and cannot be edited or deleted.`}
        />
        <p>
          <Link to="/console/products">See all products</Link>
        </p>
      </>
    );
  }
  const { collection: c, members, totalMembers, page, pages, find, picker, created } = loaderData;
  const result = actionData as ActionResult | undefined;
  // A save is done when the page's data has come back too, not when the action answers: only then is the form drawn
  // anew from the saved values (its key). "Saving…" and the notice last until then, so a file picked right after
  // "Saved" appears is not dropped by the new form.
  const busy = navigation.state !== "idle" && navigation.formData?.get("intent") === "save";
  const saveResult = result?.intent === "save" ? result : null;
  const otherResult = result && result.intent !== "save" && result.intent !== "delete" ? result : null;
  const shopLink = (
    <a href={`/collections/${c.slug}`} target="_blank" rel="noopener" className="console-button">
      View in the shop
    </a>
  );
  return (
    <>
      <PageHead title={c.name} back={["/console/collections", "Collections"]} actions={c.visible ? shopLink : <Badge>Hidden from shoppers</Badge>} />
      <Notice text={created && !result ? `Created “${c.name}”. Add its products below.` : null} />
      <Notice text={busy ? null : result?.ok} />
      {(otherResult?.problem || (!canWrite && result?.problem)) && <ErrorSummary problem={otherResult?.problem ?? result?.problem} />}
      <section aria-labelledby="collection-details-heading">
        <h2 id="collection-details-heading">Details</h2>
        {canWrite ? (
          <CollectionForm
            // A saved change shows the stored values (the key changes with updatedDate); a refused one keeps what was typed.
            key={c.updatedDate}
            initial={{ name: c.name, slug: c.slug, description: c.description, imageUrl: c.image, visible: c.visible }}
            result={saveResult}
            submitLabel="Save"
            busy={busy}
            slugHint={SLUG_HINT}
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
      <Members name={c.name} shown={c.numberOfProducts} members={members} total={totalMembers} page={page} pages={pages} canWrite={canWrite} />
      {canWrite && <Picker find={find} picker={picker} page={page} />}
      {canWrite && (
        <DeleteCollection name={c.name} confirming={!!result?.confirmDelete} problem={result?.intent === "delete" ? result.problem : null} />
      )}
    </>
  );
}
