import type { FieldViolation } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";
import { toMinor } from "#worker/platform/money";
import { unitsCompatible } from "./pricing";
import type { MediaInput, ProductInput, VariantOverride } from "./schemas";
import type { StoredMedia, StoredOption } from "./tables";
import { matching, type VariantRow } from "./variants";

/** Product input from the wire turned into stored rows: media, options, variant overrides and their checks. */

export function storedMedia(m: MediaInput): StoredMedia {
  const isVideo = m.mediaType === "video" || /\.(mp4|webm|mov)(\?|$)/i.test(m.url);
  return {
    id: newId(),
    mediaType: isVideo ? "video" : "image",
    url: m.url,
    ...(m.title ? { title: m.title } : {}),
    ...(m.altText ? { altText: m.altText } : {}),
    // Sizes cannot be read without fetching the file; 800×800 is the documented default.
    width: m.width ?? 800,
    height: m.height ?? 800,
    ...(m.thumbnailUrl ? { thumbnailUrl: m.thumbnailUrl } : {}),
  };
}

/** Options from the wire, keeping the ids (and choice media) of options and choices that already exist. */
export function storedOptions(
  input: NonNullable<ProductInput["productOptions"]>,
  previous: StoredOption[],
  violations: FieldViolation[],
): StoredOption[] {
  const names = new Set<string>();
  return input.map((o, i) => {
    const at = `product.productOptions[${i}]`;
    if (names.has(o.name.toLowerCase()))
      violations.push({ field: `${at}.name`, description: `repeats the option "${o.name}"`, violatedRule: "VALIDATION", data: {} });
    names.add(o.name.toLowerCase());
    const prev = previous.find((p) => p.name === o.name);
    const seen = new Set<string>();
    return {
      id: prev?.id ?? newId(),
      name: o.name,
      optionType: o.optionType,
      choices: o.choices.map((c, j) => {
        const description = c.description ?? c.value;
        if (seen.has(description.toLowerCase()))
          violations.push({
            field: `${at}.choices[${j}].description`,
            description: `repeats the choice "${description}"`,
            violatedRule: "VALIDATION",
            data: {},
          });
        seen.add(description.toLowerCase());
        if (o.optionType === "color" && !/^#[0-9a-fA-F]{6}$/.test(c.value))
          violations.push({
            field: `${at}.choices[${j}].value`,
            description: "must be a colour code like #1F3A5F",
            violatedRule: "FORMAT",
            data: {},
          });
        const prevChoice = prev?.choices.find((pc) => pc.description === description);
        return { value: c.value, description, visible: c.visible ?? true, mediaIds: prevChoice?.mediaIds ?? [] };
      }),
    };
  });
}

/** Applies per-variant overrides; each must match at least one variant. */
/** An override that gives a variant its own price, cost, weight, SKU or visibility (stock alone needs no manageVariants). */
export function ownVariantData(o: VariantOverride): boolean {
  return o.price !== undefined || o.cost !== undefined || o.weight !== undefined || o.sku !== undefined || o.visible !== undefined;
}

export function applyOverrides(
  rows: VariantRow[],
  overrides: VariantOverride[],
  trackInventory: boolean,
  currency: string,
  field: string,
  violations: FieldViolation[],
): Set<VariantRow> {
  const touched = new Set<VariantRow>();
  overrides.forEach((o, i) => {
    const at = `${field}[${i}]`;
    let targets = rows;
    if (o.choices) targets = matching(targets, o.choices);
    if (o.variantIds) targets = targets.filter((v) => o.variantIds!.includes(v.id));
    if (!o.choices && !o.variantIds) {
      violations.push({ field: `${at}.choices`, description: "is required (or variantIds)", violatedRule: "REQUIRED_FIELD", data: {} });
      return;
    }
    if (targets.length === 0) {
      violations.push({
        field: o.choices ? `${at}.choices` : `${at}.variantIds`,
        description: "matches no variant of this product",
        violatedRule: "VALIDATION",
        data: {},
      });
      return;
    }
    for (const v of targets) {
      if (o.price !== undefined) v.price = toMinor(o.price, currency);
      if (o.cost !== undefined) v.cost = toMinor(o.cost, currency);
      if (o.weight !== undefined) v.weight = o.weight;
      if (o.sku !== undefined) v.sku = o.sku || null;
      if (o.visible !== undefined) v.visible = o.visible;
      if (o.stock?.quantity !== undefined) {
        if (!trackInventory)
          violations.push({
            field: `${at}.stock.quantity`,
            description: "needs stock.trackInventory on the product",
            violatedRule: "VALIDATION",
            data: {},
          });
        v.quantity = o.stock.quantity;
      }
      if (o.stock?.inStock !== undefined) v.inStock = o.stock.inStock;
      touched.add(v);
    }
  });
  return touched;
}

export function checkCommon(
  p: { pricePerUnitData?: ProductInput["pricePerUnitData"]; discount?: ProductInput["discount"] | null },
  violations: FieldViolation[],
) {
  const ppu = p.pricePerUnitData;
  if (ppu && !unitsCompatible(ppu.totalMeasurementUnit, ppu.baseMeasurementUnit)) {
    violations.push({
      field: "product.pricePerUnitData.baseMeasurementUnit",
      description: `cannot be compared with ${ppu.totalMeasurementUnit}`,
      violatedRule: "VALIDATION",
      data: {},
    });
  }
}

/** Media that belong to choices: `media[].choice` links an item to a choice of an option. */
export function linkChoiceMedia(options: StoredOption[], media: StoredMedia[], inputs: MediaInput[], field: string, violations: FieldViolation[]) {
  inputs.forEach((m, i) => {
    if (!m.choice) return;
    const choice = options.find((o) => o.name === m.choice!.option)?.choices.find((c) => c.description === m.choice!.choice);
    if (!choice)
      violations.push({ field: `${field}[${i}].choice`, description: `names no choice of this product`, violatedRule: "VALIDATION", data: {} });
    else choice.mediaIds.push(media[i].id);
  });
}
