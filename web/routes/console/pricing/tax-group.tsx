import { queryCollections } from "#worker/catalog";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { taxGroupService } from "#worker/pricing";
import { Field, FieldError, fieldId } from "#web/components/ui/form";
import { PricingEditor, usePricingEditor } from "#web/components/console/pricing";
import { storedItem, listOf, pricingAction, text } from "#web/components/console/pricing.server";
import { fieldAt } from "#web/components/ui/form.server";
import { consoleMeta } from "#web/components/console/title";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax-group";
import type { TaxGroup } from "#web/components/console/pricing-items";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(
  ({ data: d }) => `${d?.group ? d.group.name : "New tax group"} — Tax — Pricing — Console`,
);

const COLLECTIONS = 100;

/** One tax group to edit ("new": a blank one) and the collections it can take (3 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const [group, found] = await Promise.all([
    storedItem<TaxGroup>(taxGroupService, context.services, params.id, "taxGroup"),
    queryCollections(context.services, { paging: { limit: COLLECTIONS, offset: 0 } }),
  ]);
  const collections = found.collections.filter((c) => c.id !== ALL_PRODUCTS_COLLECTION_ID).map((c) => ({ id: c.id, name: c.name }));
  return { group, collections };
});

const G = "taxGroup";
const COLLECTION_IDS = `${G}.collectionIds`;

/** The form's fields (named by API path) as the tax-group service's request: ticked collections, product ids as typed. */
function groupRequest(v: Record<string, string>) {
  return { name: text(v, `${G}.name`), catalogItemIds: listOf(text(v, `${G}.catalogItemIds`)), collectionIds: listOf(text(v, COLLECTION_IDS)) };
}

/** Create, save or delete through the tax-group service the API calls (settings.manage; 400 and 409 write nothing). */
export const action = pricingAction({
  service: taxGroupService,
  wrapper: G,
  listPath: "/console/pricing/tax/groups",
  request: groupRequest,
  label: (v) => `tax group “${text(v, `${G}.name`) || "unnamed"}”`,
  // With nothing ticked, the collections' errors still show at their list.
  fieldOf: (path, v) => fieldAt(v, { [COLLECTION_IDS]: COLLECTION_IDS })(path),
});

export default function PricingTaxGroup({ loaderData, actionData }: Route.ComponentProps) {
  const { group: g, collections } = loaderData;
  const {
    frame,
    text: typed,
    error,
    field,
  } = usePricingEditor(actionData, g, {
    back: ["/console/pricing/tax/groups", "Tax groups"],
    noun: "tax group",
    fresh: "New tax group",
  });
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
