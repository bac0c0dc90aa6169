import { data, redirect, useActionData, useNavigation } from "react-router";
import { collectionInputSchema, createCollection } from "#worker/catalog";
import { PERMISSION_LABELS } from "#worker/platform/context";
import { parseWith } from "#worker/platform/validation";
import { CollectionForm } from "#web/components/console/collections/form";
import { collectionFormRaw, collectionImage, collectionProblem } from "#web/components/console/collections/collections.server";
import { ErrorSummary } from "#web/components/ui/form";
import { readForm } from "#web/components/ui/form.server";
import { PageHead } from "#web/components/ui/page";
import { consoleMeta } from "#web/components/console/title";
import { requireStaff, staffOnly } from "#web/console.server";
import "#web/styles/console-collections.css";
import type { Route } from "./+types/new";

export const meta = consoleMeta("New collection — Console");

/** No D1 reads of its own; staff without catalog.write are told so (the service would refuse the save anyway). */
export function loader({ context, request }: Route.LoaderArgs) {
  const user = requireStaff(context, request);
  const allowed = user.permissions.includes("catalog.write");
  return data({ allowed }, { status: allowed ? 200 : 403 });
}

/** Creates the collection through the catalogue service (catalog.write), then opens its page to add products. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const form = await request.formData();
  const raw = collectionFormRaw(form);
  try {
    const input = parseWith(collectionInputSchema, {
      name: raw.name,
      ...(raw.slug ? { slug: raw.slug } : {}),
      description: raw.description,
      visible: raw.visible,
      ...(raw.imageUrl ? { media: { url: raw.imageUrl } } : {}),
    });
    const media = await collectionImage(context.services, form, raw.imageUrl);
    const created = await createCollection(context.services, { ...input, media: media ?? undefined });
    return redirect(`/console/collections/${created.id}?created=1`);
  } catch (err) {
    const problem = collectionProblem(err);
    return data({ problem, values: readForm(form, ["intent"]) }, { status: problem.status ?? 400 });
  }
});

export default function NewCollection({ loaderData }: Route.ComponentProps) {
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  return (
    <>
      <PageHead title="New collection" back={["/console/collections", "Collections"]} />
      {loaderData.allowed ? (
        <CollectionForm
          initial={{ name: "", slug: "", description: "", imageUrl: "", visible: true }}
          result={result}
          submitLabel="Create collection"
          busy={busy}
          slugHint="The collection's address in the shop, /collections/<slug>: lower-case letters, digits and dashes. Leave empty to make one from the name."
        />
      ) : (
        <>
          <ErrorSummary problem={result?.problem} />
          <p className="console-error" role="alert">
            You may look at collections but not create them: creating needs the “{PERMISSION_LABELS["catalog.write"]}” permission, which the store
            owner grants.
          </p>
        </>
      )}
    </>
  );
}
