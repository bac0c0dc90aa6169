import type { Ctx } from "#worker/platform/context";
import { badField, invalidArgument, type FieldViolation } from "#worker/platform/errors";
import type { MediaInput } from "./schemas";
import { releaseUnusedMedia } from "./media";
import type { LoadedProduct } from "./shapes";
import { linkChoiceMedia, storedMedia } from "./product-input";
import { loadForWrite, writeProductColumns } from "./product-store";

/** A product's media items: add, remove, reorder, alt text, and links to option choices. */

/** Adds media items (by URL) to a product; an item may name the choice it shows. */
export async function addProductMedia(ctx: Ctx, id: string, inputs: MediaInput[]): Promise<void> {
  const current = await loadForWrite(ctx, id);
  if (current.row.media.length + inputs.length > 50)
    throw badField("media", `would give the product more than 50 media items (it has ${current.row.media.length})`, "MAX_SIZE");
  const added = inputs.map(storedMedia);
  const options = structuredClone(current.row.productOptions);
  const violations: FieldViolation[] = [];
  linkChoiceMedia(options, added, inputs, "media", violations);
  if (violations.length) throw invalidArgument(violations);
  await writeProductColumns(ctx, current, { media: [...current.row.media, ...added], productOptions: options }, ["media"]);
}

function checkMediaIds(current: LoadedProduct, ids: string[], field: string) {
  const known = new Set(current.row.media.map((m) => m.id));
  const violations: FieldViolation[] = [];
  ids.forEach((mid, i) => {
    if (!known.has(mid))
      violations.push({ field: `${field}[${i}]`, description: "is not a media item of this product", violatedRule: "VALIDATION", data: {} });
  });
  if (violations.length) throw invalidArgument(violations);
}

/** Removes media items (and unlinks them from choices). */
export async function removeProductMedia(ctx: Ctx, id: string, mediaIds: string[]): Promise<void> {
  const current = await loadForWrite(ctx, id);
  checkMediaIds(current, mediaIds, "mediaIds");
  const gone = new Set(mediaIds);
  const options = current.row.productOptions.map((o) => ({
    ...o,
    choices: o.choices.map((c) => ({ ...c, mediaIds: c.mediaIds.filter((m) => !gone.has(m)) })),
  }));
  await writeProductColumns(ctx, current, { media: current.row.media.filter((m) => !gone.has(m.id)), productOptions: options }, ["media"]);
  ctx.waitUntil(
    releaseUnusedMedia(
      ctx,
      current.row.media.filter((m) => gone.has(m.id)).flatMap((m) => [m.url, m.thumbnailUrl ?? ""]),
    ),
  );
}

/** Puts a product's media in this order (every item once); the first is the main image. */
export async function reorderProductMedia(ctx: Ctx, id: string, mediaIds: string[]): Promise<void> {
  const current = await loadForWrite(ctx, id);
  checkMediaIds(current, mediaIds, "mediaIds");
  if (new Set(mediaIds).size !== mediaIds.length || mediaIds.length !== current.row.media.length) {
    throw badField("mediaIds", `must list each of the product's ${current.row.media.length} media items once`);
  }
  const byId = new Map(current.row.media.map((m) => [m.id, m]));
  await writeProductColumns(ctx, current, { media: mediaIds.map((m) => byId.get(m)!) }, ["media"]);
}

/** Sets (or, with an empty text, clears) one media item's alt text. */
export async function setProductMediaAltText(ctx: Ctx, id: string, mediaId: string, altText: string): Promise<void> {
  const current = await loadForWrite(ctx, id);
  checkMediaIds(current, [mediaId], "mediaIds");
  const text = altText.trim();
  if (text.length > 200) throw badField("altText", "must be at most 200 characters", "MAX_LENGTH");
  const media = current.row.media.map((m) => {
    if (m.id !== mediaId) return m;
    const { altText: _old, ...rest } = m;
    return text ? { ...rest, altText: text } : rest;
  });
  await writeProductColumns(ctx, current, { media }, ["media"]);
}

/** Links (add) or unlinks (remove) media items to option choices. */
export async function setChoiceMedia(
  ctx: Ctx,
  id: string,
  entries: { option: string; choice: string; mediaIds: string[] }[],
  mode: "add" | "remove",
): Promise<void> {
  const current = await loadForWrite(ctx, id);
  const options = structuredClone(current.row.productOptions);
  const violations: FieldViolation[] = [];
  entries.forEach((e, i) => {
    const option = options.find((o) => o.name === e.option);
    const choice = option?.choices.find((c) => c.description === e.choice);
    if (!option)
      violations.push({ field: `media[${i}].option`, description: "is not an option of this product", violatedRule: "VALIDATION", data: {} });
    else if (!choice)
      violations.push({ field: `media[${i}].choice`, description: `is not a choice of ${e.option}`, violatedRule: "VALIDATION", data: {} });
    const known = new Set(current.row.media.map((m) => m.id));
    e.mediaIds.forEach((m, j) => {
      if (!known.has(m))
        violations.push({
          field: `media[${i}].mediaIds[${j}]`,
          description: "is not a media item of this product",
          violatedRule: "VALIDATION",
          data: {},
        });
    });
    if (choice)
      choice.mediaIds = mode === "add" ? [...new Set([...choice.mediaIds, ...e.mediaIds])] : choice.mediaIds.filter((m) => !e.mediaIds.includes(m));
  });
  if (violations.length) throw invalidArgument(violations);
  await writeProductColumns(ctx, current, { productOptions: options }, ["productOptions"]);
}
