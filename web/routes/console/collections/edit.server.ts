import { data, redirect } from "react-router";
import { changeMembership, collectionPatchSchema, deleteCollection, updateCollection } from "#worker/catalog";
import { requirePermission } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { collectionFormRaw, collectionImage, collectionProblem, hasImageFile } from "#web/components/console/collections/collections.server";
import type { Problem } from "#web/components/ui/form";
import { readForm } from "#web/components/ui/form.server";
import { staffOnly } from "#web/console.server";
import type { Route } from "./+types/edit";

export type ActionResult = {
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
export const collectionAction = staffOnly(async ({ context, request, params }: Route.ActionArgs) => {
  const ctx = context.services;
  const id = params.id;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const productId = String(form.get("productId") ?? "").slice(0, 100);
  const productName = String(form.get("productName") ?? "").slice(0, 200) || "the product";
  const done = (ok: string): ActionResult => ({ ok, intent, problem: null, values: null, productId });
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
        return done(`Added ${productName}.`);
      case "remove":
        await changeMembership(ctx, id, [productId], "remove");
        return done(`Removed ${productName}.`);
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
    const result: ActionResult = { ok: null, intent, problem, values: intent === "save" ? readForm(form, ["intent"]) : null, productId };
    return data(result, { status: problem.status ?? 400 });
  }
});
