import { data } from "react-router";
import { loadProduct } from "#worker/catalog";
import { deleteProductFile, listProductFiles, MAX_DOWNLOAD_BYTES, type DigitalFile } from "#worker/downloads";
import { PostButton } from "#web/components/console/post-button";
import { FileUpload } from "#web/components/console/product-downloads/upload";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { EmptyState, Notice, PageHead, useCan } from "#web/components/ui/page";
import { DataTable } from "#web/components/ui/table";
import { consoleHeaders, staffOnly } from "#web/console.server";
import type { Route } from "./+types/downloads";

export const meta: Route.MetaFunction = consoleMeta<Route.MetaArgs>(({ data: d }) =>
  d?.product ? `Files of ${d.product.name} — Console` : "Files — Console",
);

export const headers = () => consoleHeaders;

/** One slot a file can fill: the whole product, or one of its variants. */
interface Slot {
  variantId: string | null;
  label: string;
  file: DigitalFile | null;
}

/** The product, its variants and the files they have. */
export const loader = staffOnly(async ({ context, params }: Route.LoaderArgs) => {
  const loaded = await loadProduct(context.services.db, params.id);
  if (!loaded) throw data("No such product.", { status: 404 });
  const files = await listProductFiles(context.services, params.id);
  const fileOf = (variantId: string | null) => files.find((f) => f.variantId === variantId) ?? null;
  const choices = loaded.variants.filter((v) => Object.keys(v.choices).length > 0);
  const slots: Slot[] = [
    { variantId: null, label: choices.length ? "Every variant without its own file" : "The product", file: fileOf(null) },
    ...choices.map((v) => ({ variantId: v.id, label: Object.values(v.choices).join(" / "), file: fileOf(v.id) })),
  ];
  return { product: { id: loaded.row.id, name: loaded.row.name, digital: loaded.row.productType === "digital" }, slots };
});

/** intent=delete: removes the file of the product or of one variant (catalog.write). */
export const action = staffOnly(async ({ context, params, request }: Route.ActionArgs) => {
  const form = await request.formData();
  const variantId = String(form.get("variantId") ?? "") || null;
  try {
    const { deleted } = await deleteProductFile(context.services, params.id, variantId);
    return { ok: `Deleted ${deleted.fileName}.`, problem: null };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem }, { status: problem.status ?? 400 });
  }
});

const sizeText = (bytes: number) => (bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

export default function ProductDownloads({ loaderData, actionData }: Route.ComponentProps) {
  const { product, slots } = loaderData;
  const canWrite = useCan("catalog.write");
  return (
    <>
      <PageHead title={`Files of ${product.name}`} back={[`/console/products/${product.id}`, product.name]} />
      <Notice text={actionData?.ok} />
      {actionData?.problem && <ErrorSummary problem={actionData.problem} />}
      {!product.digital ? (
        <EmptyState>Only a digital product has files for download: set its product type to digital in the editor first.</EmptyState>
      ) : (
        <>
          <p className="console-muted">
            {`Buyers get a download link by email once their order is paid, and on their order page. Files up to ${MAX_DOWNLOAD_BYTES / 1_048_576} MB; a variant's own file replaces the product's for that variant. The download limit and how long links stay valid are in Settings.`}
          </p>
          {canWrite ? (
            <p className="console-muted">Uploading needs JavaScript in this browser (the file is sent straight to storage, with a progress bar).</p>
          ) : (
            <p className="console-muted">Changing files needs the permission to “Edit products, collections and media” from the store owner.</p>
          )}
          <DataTable
            caption="Files for download"
            rows={slots}
            rowKey={(s) => s.variantId ?? "product"}
            columns={[
              { header: "For", cell: (s) => s.label, rowHeader: true },
              { header: "File", cell: (s) => (s.file ? `${s.file.fileName} (${sizeText(s.file.size)})` : "No file") },
              {
                header: "Change",
                cell: (s) =>
                  canWrite && (
                    <>
                      <FileUpload productId={product.id} variantId={s.variantId} label={s.label} replacing={!!s.file} />
                      {s.file && (
                        <PostButton intent="delete" fields={{ variantId: s.variantId ?? "" }} danger label={`Delete the file for ${s.label}`}>
                          Delete
                        </PostButton>
                      )}
                    </>
                  ),
              },
            ]}
          />
        </>
      )}
    </>
  );
}
