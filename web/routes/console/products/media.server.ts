import { data } from "react-router";
import {
  addProductMedia,
  releaseUnusedMedia,
  removeProductMedia,
  reorderProductMedia,
  setChoiceMedia,
  setProductMediaAltText,
} from "#worker/catalog";
import { ensureStored, uploadImages, type UploadFile } from "#worker/media";
import type { Ctx } from "#worker/platform/context";
import { ApiError, badField } from "#worker/platform/errors";
import type { Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";

type Intent = "upload" | "reorder" | "remove" | "alt" | "choice";

/** A pixel size the catalogue accepts (a header may claim more than any real image has). */
const size = (n: number | null) => (n && n <= 20_000 ? n : undefined);

/**
 * Upload (images checked and stored in R2, then added to the product in one write), reorder, remove, alt text and
 * choice links, each through the catalogue and media services (catalog.write). A refused upload stores and adds
 * nothing; an upload the product then refuses (e.g. over 50 items) has its new files released again.
 */
export async function productMediaAction(ctx: Ctx, id: string, form: FormData) {
  const intent = String(form.get("intent") ?? "") as Intent;
  const mediaId = String(form.get("mediaId") ?? "");
  const values = { mediaId, altText: String(form.get("altText") ?? "") };
  try {
    switch (intent) {
      case "upload": {
        // A form sent without a chosen file still carries one empty, nameless part.
        const files = form.getAll("file").filter((f): f is File => typeof f !== "string" && !(f.size === 0 && !f.name)) as UploadFile[];
        const uploaded = await uploadImages(ctx, files, "file");
        try {
          await addProductMedia(
            ctx,
            id,
            uploaded.map((u) => ({ url: u.url, width: size(u.width), height: size(u.height) })),
          );
        } catch (err) {
          ctx.waitUntil(
            releaseUnusedMedia(
              ctx,
              uploaded.map((u) => u.url),
            ),
          );
          throw err;
        }
        await ensureStored(ctx, files, uploaded);
        return { ok: `Uploaded ${uploaded.length === 1 ? "1 image" : `${uploaded.length} images`}.`, intent, problem: null, values };
      }
      case "reorder": {
        const order = String(form.get("order") ?? "")
          .split(",")
          .filter(Boolean);
        await reorderProductMedia(ctx, id, order);
        return { ok: "Order saved.", intent, problem: null, values };
      }
      case "remove":
        await removeProductMedia(ctx, id, [mediaId]);
        return { ok: "Image removed.", intent, problem: null, values };
      case "alt":
        await setProductMediaAltText(ctx, id, mediaId, values.altText);
        return { ok: values.altText.trim() ? "Alt text saved." : "Alt text cleared.", intent, problem: null, values };
      case "choice": {
        let option = "";
        let choice = "";
        try {
          [option, choice] = JSON.parse(String(form.get("choice") ?? "")) as [string, string];
        } catch {
          throw badField("choice", "Choose an option and a choice");
        }
        const mode = form.get("mode") === "remove" ? "remove" : "add";
        await setChoiceMedia(ctx, id, [{ option: String(option), choice: String(choice), mediaIds: [mediaId] }], mode);
        return {
          ok: mode === "add" ? `Shown for ${option}: ${choice}.` : `No longer shown for ${option}: ${choice}.`,
          intent,
          problem: null,
          values,
        };
      }
      default:
        throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    }
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    return data({ ok: null, intent, problem, values }, { status: problem.status ?? 400 });
  }
}
