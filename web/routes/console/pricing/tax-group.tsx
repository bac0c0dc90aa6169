import { queryCollections } from "#worker/catalog";
import { ALL_PRODUCTS_COLLECTION_ID } from "#worker/platform/ids";
import { taxGroupService } from "#worker/pricing";
import { Field, FieldError } from "#web/components/ui/form";
import { PricingEditor, usePricingEditor, type FieldPlaces } from "#web/components/console/pricing";
import { itemOf, listOf, saveOrDelete, text } from "#web/components/console/pricing.server";
import { orRefuse } from "#web/components/console/problem.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-pricing.css";
import type { Route } from "./+types/tax-group";
import type { TaxGroup } from "./tax-groups";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, `${d?.group ? d.group.name : "New tax group"} — Tax — Pricing — Console`) }];
}

export const headers = () => consoleHeaders;

const COLLECTIONS = 100;

/** One tax group to edit ("new": a blank one) and the collections it can take (3 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  const [group, found] = await Promise.all([
    params.id === "new" ? null : orRefuse(taxGroupService.get(context.services, params.id)).then((r) => itemOf<TaxGroup>(r, "taxGroup")),
    queryCollections(context.services, { paging: { limit: COLLECTIONS, offset: 0 } }),
  ]);
  const collections = found.collections.filter((c) => c.id !== ALL_PRODUCTS_COLLECTION_ID).map((c) => ({ id: c.id, name: c.name }));
  return { group, collections };
}

/** The form's fields as the tax-group service's request: ticked collections, product ids as typed. */
function groupRequest(v: Record<string, string>) {
  return {
    name: text(v, "name"),
    catalogItemIds: listOf(text(v, "products")),
    collectionIds: Object.keys(v)
      .filter((k) => k.startsWith("c-"))
      .map((k) => k.slice(2)),
  };
}

/** Create, save or delete through the tax-group service the API calls (settings.manage; 400 and 409 write nothing). */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  return saveOrDelete({
    ctx: context.services,
    form: await request.formData(),
    id: params.id,
    service: taxGroupService,
    wrapper: "taxGroup",
    listPath: "/console/pricing/tax/groups",
    request: groupRequest,
    label: (v) => `tax group “${text(v, "name") || "unnamed"}”`,
  });
}

const PLACES: FieldPlaces = [
  ["taxGroup.name", "tg-name"],
  ["taxGroup.catalogItemIds*", "tg-products"],
  ["taxGroup.collectionIds*", "tg-collections"],
];

export default function PricingTaxGroup({ loaderData, actionData }: Route.ComponentProps) {
  const { group: g, collections } = loaderData;
  const { result, canWrite, byId, fieldIds, f, field } = usePricingEditor(actionData, PLACES);
  const title = g ? g.name : "New tax group";
  // Collections of the group that are not in the first page of collections stay in the group, as hidden ticks.
  const unlisted = (g?.collectionIds ?? []).filter((id) => !collections.some((c) => c.id === id));
  return (
    <PricingEditor
      back={["/console/pricing/tax/groups", "Tax groups"]}
      title={title}
      result={result}
      fieldIds={fieldIds}
      revision={g?.revision ?? null}
      canWrite={canWrite}
      submitLabel={g ? "Save tax group" : "Create tax group"}
      deleteWhat={g ? `tax group “${g.name}”` : null}
    >
      <Field {...field("tg-name", "name", g?.name)} label="Name" hint="E.g. Books, Food." />
      <fieldset id="tg-collections" tabIndex={-1} aria-describedby={byId["tg-collections"] ? "tg-collections-error" : undefined}>
        <legend>Products of these collections</legend>
        {collections.length === 0 && <p className="console-muted">No collections yet.</p>}
        {collections.map((c) => (
          <div key={c.id} className="console-check">
            <input
              type="checkbox"
              id={`tg-c-${c.id}`}
              name={`c-${c.id}`}
              defaultChecked={f.checked(`c-${c.id}`, !!g?.collectionIds.includes(c.id))}
            />
            <label htmlFor={`tg-c-${c.id}`}>{c.name}</label>
          </div>
        ))}
        {unlisted.map((id) => (
          <input key={id} type="hidden" name={`c-${id}`} value="on" />
        ))}
        <FieldError id="tg-collections-error" message={byId["tg-collections"]} />
      </fieldset>
      <Field
        {...field("tg-products", "products", g?.catalogItemIds.join(", "))}
        label="And these products (ids)"
        hint="Product ids separated by commas, as the API and each product editor's address (/console/products/<id>) show them; optional."
        autoComplete="off"
      />
    </PricingEditor>
  );
}
