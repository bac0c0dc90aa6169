import { queryCollections } from "#worker/catalog";
import type { Ctx } from "#worker/platform/context";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { taxGroupService } from "#worker/pricing";
import { Field, FieldError, fieldId } from "#web/components/ui/form";
import { PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { listOf, text } from "#web/components/console/pricing.server";
import { editorMeta, TAX_GROUP } from "#web/components/console/pricing/editors";
import { editAction, editLoader } from "#web/components/console/pricing/editors.server";
import { fieldAt } from "#web/components/ui/form.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax-group";
import type { TaxGroup } from "#web/components/console/pricing-items";

const COLLECTIONS = 100;

/** The collections a tax group can take: the first 100, less the built-in one of all products. */
async function collectionsOf(ctx: Ctx) {
  const found = await queryCollections(ctx, { paging: { limit: COLLECTIONS, offset: 0 } });
  return { collections: found.collections.filter((c) => c.id !== ALL_PRODUCTS_COLLECTION_ID).map((c) => ({ id: c.id, name: c.name })) };
}

export const meta = editorMeta(TAX_GROUP);

/** One tax group to edit ("new": a blank one) and the collections it can take (3 D1 round trips with the session). */
export const loader = editLoader<TaxGroup, Awaited<ReturnType<typeof collectionsOf>>>(taxGroupService, "taxGroup", collectionsOf);

const G = "taxGroup";
const COLLECTION_IDS = `${G}.collectionIds`;

/** The form's fields (named by API path) as the tax-group service's request: ticked collections, product ids as typed. */
function groupRequest(v: Record<string, string>) {
  return { name: text(v, `${G}.name`), catalogItemIds: listOf(text(v, `${G}.catalogItemIds`)), collectionIds: listOf(text(v, COLLECTION_IDS)) };
}

/** Create, save or delete through the tax-group service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = editAction(taxGroupService, G, TAX_GROUP, {
  request: groupRequest,
  label: (v) => `tax group “${text(v, `${G}.name`) || "unnamed"}”`,
  // With nothing ticked, the collections' errors still show at their list.
  fieldOf: (path, v) => fieldAt(v, { [COLLECTION_IDS]: COLLECTION_IDS })(path),
});

export default function PricingTaxGroup({ loaderData, actionData }: Route.ComponentProps) {
  const { item: g, collections } = loaderData;
  const { frame, text: typed, error, field } = usePricingEditor(actionData, g, TAX_GROUP);
  const ticked = typed(COLLECTION_IDS, g?.collectionIds.join(",")).split(",");
  // Collections of the group that are not in the first page of collections stay in the group, as hidden ticks.
  const unlisted = (g?.collectionIds ?? []).filter((id) => !collections.some((c) => c.id === id));
  const listId = fieldId(COLLECTION_IDS);
  return (
    <PricingEditor {...frame}>
      <Field {...field(`${G}.name`, g?.name)} label="Name" hint="E.g. Books, Food." />
      <fieldset id={listId} tabIndex={-1} aria-describedby={error(COLLECTION_IDS) ? `${listId}-error` : undefined}>
        <legend>Products of these collections</legend>
        {collections.length === 0 && <p className="console-muted">No collections yet.</p>}
        {collections.map((c) => (
          <div key={c.id} className="console-check">
            <input type="checkbox" id={`${listId}-${c.id}`} name={COLLECTION_IDS} value={c.id} defaultChecked={ticked.includes(c.id)} />
            <label htmlFor={`${listId}-${c.id}`}>{c.name}</label>
          </div>
        ))}
        {unlisted.map((id) => (
          <input key={id} type="hidden" name={COLLECTION_IDS} value={id} />
        ))}
        <FieldError id={`${listId}-error`} message={error(COLLECTION_IDS)} />
      </fieldset>
      <Field
        {...field(`${G}.catalogItemIds`, g?.catalogItemIds.join(", "))}
        label="And these products (ids)"
        hint="Product ids separated by commas, as the API and each product editor's address (/console/products/<id>) show them; optional."
        autoComplete="off"
      />
    </PricingEditor>
  );
}
