import { data, redirect } from "react-router";
import {
  createProduct,
  createProductRequest,
  deleteProduct,
  duplicateProduct,
  type loadProductEditor,
  updateProduct,
  updateProductRequest,
} from "#worker/catalog";
import type { Ctx } from "#worker/platform/context";
import { parseWith } from "#worker/platform/validation";
import { NAMES, readEditorForm, withSpareRows, withSpareSection } from "#web/components/console/product-form";
import { editorFieldOf, editorValuesFrom, productFromEditor } from "#web/components/console/product-form.server";
import type { Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf, readForm } from "#web/components/ui/form.server";

/**
 * The product editor's action: save (create or update through the catalogue service, with the same body the API
 * takes), preview the variant grid for edited options without saving (the form without JavaScript), duplicate,
 * delete. A refused save writes nothing and comes back with every typed value and each error next to its field.
 */
export async function productEditorAction(ctx: Ctx, id: string | null, form: FormData, canStock: boolean) {
  const intent = String(form.get("intent") ?? "");
  try {
    if (intent === "delete" && id) {
      await deleteProduct(ctx, id);
      return redirect(`/console/products?deleted=${encodeURIComponent(String(form.get("name") ?? "").slice(0, 80))}`);
    }
    if (intent === "duplicate" && id) {
      const copy = await duplicateProduct(ctx, id);
      return redirect(`/console/products/${copy.id}?duplicated=1`);
    }
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ values: null, problem, intent, stamp: Date.now() }, { status: problem.status ?? 400 });
  }

  const values = readEditorForm(form);
  const again = { ...values, options: withSpareRows(values.options), sections: withSpareSection(values.sections) };
  if (intent === "preview") return { values: again, problem: null, intent, stamp: Date.now() };
  if (intent !== "save")
    return data({ values: again, problem: { message: "Unknown action.", fields: {} } as Problem, intent, stamp: Date.now() }, { status: 400 });

  const { product, rows } = productFromEditor(values, { isNew: !id, stock: canStock });
  try {
    if (!id) {
      const created = await createProduct(ctx, parseWith(createProductRequest, { product }).product);
      return redirect(`/console/products/${created.id}?saved=1`);
    }
    await updateProduct(ctx, id, parseWith(updateProductRequest, { product }).product);
    return redirect(`/console/products/${id}?saved=1`);
  } catch (err) {
    // Errors keyed by the form's input names, so each shows next to its field.
    const problem = problemOf(err, { ...CONSOLE, fieldOf: editorFieldOf(rows, readForm(form)) });
    if (problem.code === "DUPLICATE_SLUG") problem.fields[NAMES.slug] = "Another product already uses this slug";
    return data({ values: again, problem, intent, stamp: Date.now() }, { status: problem.status ?? 400 });
  }
}

/** The editor page's data for a product (null: a new one) as the catalogue loaded it. */
export function editorPageData(
  loaded: Awaited<ReturnType<typeof loadProductEditor>>,
  id: string | null,
  currency: string,
  permissions: readonly string[],
) {
  const { product, brands, ribbons } = loaded;
  const { unsupported, ...values } = editorValuesFrom(product, currency);
  return {
    id,
    name: product?.row.name ?? "",
    slug: product?.row.slug ?? "",
    shown: product?.row.visible ?? false,
    media: (product?.row.media ?? [])
      .filter((m) => m.mediaType === "image")
      .slice(0, 8)
      .map((m) => ({ id: m.id, url: m.url, alt: m.altText ?? "" })),
    currency,
    values,
    unsupported,
    brands,
    ribbons,
    canWrite: permissions.includes("catalog.write"),
    // A new product's opening stock is part of creating it; changing an existing one's is a stock change.
    canStock: !id || permissions.includes("inventory.write"),
  };
}
