import { z } from "zod";
import { MEASUREMENT_UNITS } from "./units";
import { httpUrl } from "#worker/platform/validation";

/**
 * Wire schemas of the catalogue (V1 shapes, as the Wix SDK sends them). Shared by the API routes, the console
 * forms and the demo catalogue. Unknown keys are dropped, as the Wix APIs do; wrong types and out-of-range
 * values are field violations.
 */

const money = z.number().finite().min(0).max(999_999_999);
const shortText = (max: number) => z.string().trim().max(max);

export { MEASUREMENT_UNITS };

export const pricePerUnitDataSchema = z.object({
  totalQuantity: z.number().finite().positive().max(1_000_000),
  totalMeasurementUnit: z.enum(MEASUREMENT_UNITS),
  baseQuantity: z.number().finite().positive().max(1_000_000),
  baseMeasurementUnit: z.enum(MEASUREMENT_UNITS),
});

export const discountSchema = z
  .object({
    type: z.enum(["NONE", "AMOUNT", "PERCENT"]),
    value: z.number().finite().min(0).max(999_999_999).default(0),
  })
  .refine((d) => d.type !== "PERCENT" || d.value <= 100, { message: "must be at most 100 for a PERCENT discount", path: ["value"] });

export const choiceSchema = z.object({
  /** drop_down: the text shown; color: the colour code (#RRGGBB). */
  value: shortText(50).min(1),
  /** The choice's name; variants refer to choices by it (e.g. {"Color": "Red"}). Defaults to value. */
  description: shortText(50).min(1).optional(),
  visible: z.boolean().optional(),
});

export const optionSchema = z.object({
  name: shortText(50).min(1),
  optionType: z.enum(["drop_down", "color"]).default("drop_down"),
  choices: z.array(choiceSchema).min(1).max(100),
});

export const infoSectionSchema = z.object({
  title: shortText(50).min(1),
  description: shortText(16_000),
});

/** A media item given by URL (R2 upload comes with the console). */
export const mediaInputSchema = z.object({
  url: httpUrl({ sitePath: true }),
  mediaType: z.enum(["image", "video"]).optional(),
  title: shortText(200).optional(),
  altText: shortText(200).optional(),
  width: z.number().int().positive().max(20_000).optional(),
  height: z.number().int().positive().max(20_000).optional(),
  /** For videos: the poster image. */
  thumbnailUrl: httpUrl({ sitePath: true }).optional(),
  /** Optional choices this media shows, e.g. {option: "Color", choice: "Red"}. */
  choice: z.object({ option: shortText(50), choice: shortText(50) }).optional(),
});

const RICH_NODE_TYPES = [
  "PARAGRAPH",
  "TEXT",
  "HEADING",
  "BULLETED_LIST",
  "ORDERED_LIST",
  "LIST_ITEM",
  "BLOCKQUOTE",
  "CODE_BLOCK",
  "VIDEO",
  "DIVIDER",
  "FILE",
  "GALLERY",
  "GIF",
  "HTML",
  "IMAGE",
  "LINK_PREVIEW",
  "MAP",
  "POLL",
  "APP_EMBED",
  "BUTTON",
  "COLLAPSIBLE_LIST",
  "COLLAPSIBLE_ITEM",
  "COLLAPSIBLE_ITEM_TITLE",
  "COLLAPSIBLE_ITEM_BODY",
  "TABLE",
  "TABLE_ROW",
  "TABLE_CELL",
  "EMBED",
  "AUDIO",
  "CAPTION",
  "LAYOUT",
  "LAYOUT_CELL",
  "EXTERNAL",
  "CAPTION",
] as const;

export interface RichNode {
  type: (typeof RICH_NODE_TYPES)[number];
  id?: string;
  nodes?: RichNode[];
  [key: string]: unknown;
}

/** A rich-content (Ricos) node: a known type, nested nodes, and its type's data object passed through. */
export const richNodeSchema: z.ZodType<RichNode> = z.lazy(() =>
  z
    .object({
      type: z.enum(RICH_NODE_TYPES),
      id: z.string().max(100).optional(),
      nodes: z.array(richNodeSchema).max(500).optional(),
    })
    .catchall(z.unknown()),
) as z.ZodType<RichNode>;

export const richContentSchema = z.object({ nodes: z.array(richNodeSchema).max(500) });

export const seoDataSchema = z.object({
  tags: z
    .array(
      z.object({
        type: shortText(20),
        props: z.record(z.string(), z.unknown()).optional(),
        children: z.string().max(1000).optional(),
        custom: z.boolean().optional(),
        disabled: z.boolean().optional(),
      }),
    )
    .max(50)
    .default([]),
  settings: z
    .object({
      preventAutoRedirect: z.boolean().optional(),
      keywords: z
        .array(z.object({ term: shortText(100), isMain: z.boolean().optional() }))
        .max(20)
        .optional(),
    })
    .default({}),
});

export const stockInputSchema = z.object({
  trackInventory: z.boolean().optional(),
  quantity: z.number().int().min(0).max(99_999_999).optional(),
  inStock: z.boolean().optional(),
});

export type MediaInput = z.output<typeof mediaInputSchema>;

export const variantOverrideSchema = z.object({
  choices: z.record(z.string(), z.string()).optional(),
  variantIds: z.array(z.string().max(100)).max(1000).optional(),
  price: money.optional(),
  cost: money.optional(),
  weight: z.number().finite().min(0).max(999_999).optional(),
  sku: shortText(40).optional(),
  visible: z.boolean().optional(),
  stock: stockInputSchema.omit({ trackInventory: true }).optional(),
});

export type VariantOverride = z.output<typeof variantOverrideSchema>;

export const slugSchema = z
  .string()
  .trim()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, "must be lower-case letters, digits and single dashes");

/** The `product` object of create and update. Update takes any subset of it. */
export const productInputSchema = z.object({
  name: shortText(80).min(1),
  slug: slugSchema.optional(),
  productType: z.enum(["physical", "digital"]).default("physical"),
  description: shortText(16_000).optional(),
  /** Rich-content description (the V3 `description` nodes). When only one of the two is given, the other is derived. */
  richDescription: richContentSchema.optional(),
  sku: shortText(40).optional(),
  visible: z.boolean().default(true),
  weight: z.number().finite().min(0).max(999_999).optional(),
  priceData: z.object({ price: money }),
  costAndProfitData: z.object({ itemCost: money }).optional(),
  discount: discountSchema.optional(),
  pricePerUnitData: pricePerUnitDataSchema.optional(),
  ribbon: shortText(30).optional(),
  brand: shortText(50).optional(),
  manageVariants: z.boolean().optional(),
  productOptions: z.array(optionSchema).max(6).optional(),
  stock: stockInputSchema.optional(),
  additionalInfoSections: z.array(infoSectionSchema).max(10).optional(),
  seoData: seoDataSchema.optional(),
  media: z.array(mediaInputSchema).max(50).optional(),
  /** Per-variant overrides at create time (same shape as PATCH …/variants). */
  variants: z.array(variantOverrideSchema).max(1000).optional(),
});

export type ProductInput = z.output<typeof productInputSchema>;
export type ProductInputRaw = z.input<typeof productInputSchema>;

export const createProductRequest = z.object({ product: productInputSchema });

/** Update: every field optional, no defaults (absent means unchanged); `null` clears brand/ribbon/discount/pricePerUnitData. */
export const productPatchSchema = productInputSchema
  .extend({
    productType: z.enum(["physical", "digital"]).optional(),
    visible: z.boolean().optional(),
    priceData: z.object({ price: money }).optional(),
    brand: shortText(50).nullable().optional(),
    ribbon: shortText(30).nullable().optional(),
    discount: discountSchema.nullable().optional(),
    /** null clears it (the console's editor does, when every price-per-unit field is emptied). */
    pricePerUnitData: pricePerUnitDataSchema.nullable().optional(),
    id: z.string().max(100).optional(),
  })
  .partial();

export type ProductPatch = z.output<typeof productPatchSchema>;

export const updateProductRequest = z.object({ product: productPatchSchema });

export const collectionInputSchema = z.object({
  name: shortText(50).min(1),
  slug: slugSchema.optional(),
  description: shortText(2000).optional(),
  visible: z.boolean().default(true),
  media: z
    .object({
      url: mediaInputSchema.shape.url,
      altText: shortText(200).optional(),
      width: z.number().int().positive().optional(),
      height: z.number().int().positive().optional(),
    })
    .optional(),
});

/** An update; `media: null` removes the collection's image. */
export const collectionPatchSchema = collectionInputSchema
  .extend({ visible: z.boolean().optional(), id: z.string().max(100).optional(), media: collectionInputSchema.shape.media.unwrap().nullable() })
  .partial();

export type CollectionInput = z.output<typeof collectionInputSchema>;
export type CollectionInputRaw = z.input<typeof collectionInputSchema>;
export type CollectionPatch = z.output<typeof collectionPatchSchema>;

const idList = z.array(z.string().trim().min(1).max(100)).min(1).max(100);
export const productIdsRequest = z.object({ productIds: idList });

export const bulkUpdateRequest = z.object({
  ids: idList,
  set: z
    .object({
      price: money.optional(),
      cost: money.optional(),
      weight: z.number().finite().min(0).max(999_999).optional(),
      visible: z.boolean().optional(),
      brand: shortText(50).optional(),
      ribbon: shortText(30).optional(),
      productType: z.enum(["physical", "digital"]).optional(),
    })
    .refine((s) => Object.keys(s).length > 0, { message: "must set at least one property" }),
});

const adjustment = z
  .object({
    amount: z.number().finite().min(-999_999_999).max(999_999_999).optional(),
    percentage: z.object({ rate: z.number().finite().min(-100).max(10_000), roundToInt: z.boolean().default(false) }).optional(),
  })
  .refine((a) => (a.amount === undefined) !== (a.percentage === undefined), { message: "must give exactly one of amount or percentage" });

export const bulkAdjustRequest = z.object({
  ids: idList,
  adjust: z
    .object({ price: adjustment.optional(), cost: adjustment.optional(), weight: adjustment.optional() })
    .refine((s) => Object.keys(s).length > 0, { message: "must adjust at least one property" }),
});

/** Console bulk delete (no public API route: the Wix bulk endpoints are update and adjust only). */
export const bulkDeleteRequest = z.object({ ids: idList });

export const mediaRequest = z.object({ media: z.array(mediaInputSchema).min(1).max(50) });
export const mediaIdsRequest = z.object({ mediaIds: z.array(z.string().min(1).max(100)).min(1).max(50) });
export const choiceMediaRequest = z.object({
  media: z
    .array(z.object({ option: shortText(50).min(1), choice: shortText(50).min(1), mediaIds: z.array(z.string().min(1).max(100)).min(1).max(50) }))
    .min(1)
    .max(100),
});
export const variantsPatchRequest = z.object({ variants: z.array(variantOverrideSchema).min(1).max(1000) });
