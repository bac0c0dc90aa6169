import { data, useNavigation, useSearchParams } from "react-router";
import { loadProductEditor } from "#worker/catalog";
import { DeleteConfirm, EditorHead, MediaStrip } from "#web/components/console/product-editor/head";
import { ProductEditor } from "#web/components/console/product-editor/editor";
import { ErrorSummary } from "#web/components/ui/form";
import { Notice } from "#web/components/ui/page";
import { consoleMeta } from "#web/components/console/title";
import { requireStaff } from "#web/console.server";
import "#web/styles/console-editor.css";
import { editorPageData, productEditorAction } from "./edit.server";
import type { Route } from "./+types/edit";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) => (d?.id ? `${d.name} — Console` : "New product — Console"));

/** The product (any visibility) and the brands and ribbons in use: one batch (2 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const user = requireStaff(context, request);
  const id = params.productId ?? null;
  const loaded = await loadProductEditor(context.services, id);
  if (id && !loaded.product) throw data("No such product.", { status: 404 });
  return editorPageData(loaded, id, context.services.currency, user.permissions);
}

/** Save, preview the variant grid, duplicate or delete (./edit.server.ts). */
export async function action({ context, request, params }: Route.ActionArgs) {
  const user = requireStaff(context, request);
  const id = params.productId ?? null;
  return productEditorAction(context.services, id, await request.formData(), !id || user.permissions.includes("inventory.write"));
}

export default function ProductEditPage({ loaderData, actionData }: Route.ComponentProps) {
  const { id, name, media, canWrite } = loaderData;
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : "";
  const confirmDelete = params.has("delete") && !!id && canWrite;
  const problem = actionData?.problem ?? null;
  return (
    <>
      <EditorHead {...loaderData} confirmDelete={confirmDelete} busy={busy} />
      <Notice text={params.has("saved") && !actionData ? "Saved." : null} />
      <Notice text={params.has("duplicated") && !actionData ? "This is a copy, hidden from shoppers until you show it." : null} />
      {confirmDelete && <DeleteConfirm name={name} busy={busy} />}
      {actionData?.intent !== "save" && actionData?.intent !== "preview" && <ErrorSummary problem={problem} />}
      {!canWrite && <p className="console-muted">Changing products needs the permission to “Edit the catalogue” from the store owner.</p>}
      <ProductEditor
        key={`${actionData?.stamp ?? ""}:${JSON.stringify(loaderData.values).length}:${id}`}
        data={loaderData}
        initial={actionData?.values ?? loaderData.values}
        problem={actionData?.intent === "save" ? problem : null}
        busy={busy}
      />
      {id && <MediaStrip id={id} media={media} />}
      {id && (
        <a className="console-side-link" href={`/console/products/${id}/downloads`}>
          Files for download →
        </a>
      )}
    </>
  );
}
