import { descriptionToRich, type LoadedProduct, type RichNode, richToMarkdown, unsupportedNodes } from "#worker/catalog";
import { toDecimalString } from "#worker/platform/money";
import { atRow, fieldAt } from "#web/components/ui/form.server";
import { NAMES, OPTIONS, optionName, SECTIONS, usedOptions, withSpareRows, withSpareSection, type EditorValues } from "./product-form";

/**
 * The product editor's form <-> the API's product (the same body POST /stores/v1/products takes), so the editor
 * goes through the catalogue service's own validation and rules: nothing here decides what a valid product is.
 */

interface SeoTag {
  type: string;
  props?: Record<string, unknown>;
  children?: string;
}

const isTitle = (t: SeoTag) => t.type === "title";
const isDescription = (t: SeoTag) => t.type === "meta" && t.props?.name === "description";

/** The form's values for a stored product, or a blank product. */
export function editorValuesFrom(p: LoadedProduct | null, currency: string): EditorValues & { unsupported: string[] } {
  const money = (minor: number | null | undefined) => (minor === null || minor === undefined ? "" : toDecimalString(minor, currency));
  if (!p) {
    return {
      name: "",
      slug: "",
      description: "",
      descriptionOriginal: "",
      productType: "physical",
      visible: true,
      price: "",
      cost: "",
      discountType: "NONE",
      discountValue: "",
      ppuTotalQuantity: "",
      ppuTotalUnit: "",
      ppuBaseQuantity: "",
      ppuBaseUnit: "",
      weight: "",
      sku: "",
      brand: "",
      ribbon: "",
      trackInventory: false,
      quantity: "",
      inStock: true,
      seoTitle: "",
      seoDescription: "",
      seoExtra: "",
      sections: withSpareSection([]),
      options: withSpareRows([]),
      variants: [],
      unsupported: [],
    };
  }
  const r = p.row;
  const nodes = (r.richDescription?.nodes ?? []) as RichNode[];
  const description = nodes.length ? richToMarkdown(nodes) : r.description;
  const seo = (r.seoData ?? {}) as { tags?: SeoTag[]; settings?: unknown };
  const tags = seo.tags ?? [];
  const single = p.variants.length === 1 && !r.productOptions.length ? p.variants[0] : null;
  return {
    name: r.name,
    slug: r.slug,
    description,
    descriptionOriginal: description,
    productType: r.productType,
    visible: r.visible,
    price: money(r.price),
    cost: money(r.cost),
    discountType: r.discountType,
    discountValue: r.discountType === "NONE" ? "" : String(r.discountValue),
    ppuTotalQuantity: r.pricePerUnitData ? String(r.pricePerUnitData.totalQuantity) : "",
    ppuTotalUnit: r.pricePerUnitData?.totalMeasurementUnit ?? "",
    ppuBaseQuantity: r.pricePerUnitData ? String(r.pricePerUnitData.baseQuantity) : "",
    ppuBaseUnit: r.pricePerUnitData?.baseMeasurementUnit ?? "",
    weight: r.weight === null ? "" : String(r.weight),
    sku: r.sku ?? "",
    brand: r.brand ?? "",
    ribbon: r.ribbon ?? "",
    trackInventory: r.trackInventory,
    quantity: single?.quantity === null || single?.quantity === undefined ? "0" : String(single.quantity),
    inStock: single ? single.inStock : true,
    seoTitle: tags.find(isTitle)?.children ?? "",
    seoDescription: String(tags.find(isDescription)?.props?.content ?? ""),
    seoExtra: JSON.stringify({ tags: tags.filter((t) => !isTitle(t) && !isDescription(t)), settings: seo.settings ?? {} }),
    sections: withSpareSection(r.infoSections.map((s) => ({ title: s.title, description: s.description }))),
    options: withSpareRows(
      r.productOptions.map((o) => ({
        name: o.name,
        type: o.optionType,
        choices: o.choices.map((c) => ({ name: c.description, color: o.optionType === "color" ? c.value : "#888888" })),
      })),
    ),
    variants: r.productOptions.length
      ? p.variants.map((v) => ({
          choices: v.choices,
          price: money(v.price ?? r.price),
          cost: money(v.cost ?? r.cost),
          sku: v.sku ?? "",
          weight: v.weight === null ? "" : String(v.weight),
          visible: v.visible,
          quantity: v.quantity === null ? "0" : String(v.quantity),
          inStock: v.inStock,
        }))
      : [],
    unsupported: unsupportedNodes(nodes),
  };
}

/** A number typed in a field: blank is "not given"; anything else that is not a number goes to the API as typed, so
 * its validation names the field ("expected number"). */
function num(text: string): number | string | undefined {
  const t = text.trim().replace(/,/g, "");
  if (!t) return undefined;
  return /^-?\d+(\.\d+)?$/.test(t) ? Number(t) : text.trim();
}

/** Where each item of the request's lists is on the form: `options[k]` is the form row of request option k. */
export interface EditorRows {
  options: number[];
  /** By request option: the form rows of its choices. */
  choices: number[][];
  sections: number[];
}

export interface EditorInput {
  /** The API's `product` object (unvalidated: the service's schema checks it). */
  product: Record<string, unknown>;
  /** The form rows of the request's options, choices and sections (blank rows are left out of the request). */
  rows: EditorRows;
}

/**
 * The API's product from the form. `isNew`: a create (every field given) rather than an update (blank optional
 * fields clear them). `stock`: whether this user may set quantities (inventory.write, or a new product).
 */
export function productFromEditor(v: EditorValues, opts: { isNew: boolean; stock: boolean }): EditorInput {
  const optionalText = (t: string) => (t.trim() ? t.trim() : opts.isNew ? undefined : null);
  // The options sent are the named ones; remember where each came from on the form (blank rows are skipped).
  const optionRows = v.options.map((o, i) => ({ o, i })).filter(({ o }) => o.name.trim() || o.choices.some((c) => c.name.trim()));
  const choiceRows = optionRows.map(({ o }) => o.choices.map((c, j) => ({ c, j })).filter(({ c }) => c.name.trim()));
  const sectionRows = v.sections.map((s, i) => ({ s, i })).filter(({ s }) => s.title.trim() || s.description.trim());
  const hasOptions = usedOptions(v.options).length > 0;

  let seoExtra: { tags?: SeoTag[]; settings?: unknown } = {};
  try {
    seoExtra = v.seoExtra ? JSON.parse(v.seoExtra) : {};
  } catch {
    seoExtra = {};
  }
  const seoTags = [
    ...(v.seoTitle.trim() ? [{ type: "title", children: v.seoTitle.trim(), props: {}, custom: false, disabled: false }] : []),
    ...(v.seoDescription.trim()
      ? [{ type: "meta", props: { name: "description", content: v.seoDescription.trim() }, custom: false, disabled: false }]
      : []),
    ...(Array.isArray(seoExtra.tags) ? seoExtra.tags : []),
  ];
  const ppuGiven = [v.ppuTotalQuantity, v.ppuTotalUnit, v.ppuBaseQuantity, v.ppuBaseUnit].some((t) => t.trim());
  const discountValue = num(v.discountValue) ?? 0;

  const product: Record<string, unknown> = {
    name: v.name,
    ...(v.slug.trim() ? { slug: v.slug.trim() } : {}),
    productType: v.productType,
    visible: v.visible,
    priceData: { price: num(v.price) ?? (v.price.trim() ? v.price : undefined) },
    ...(v.cost.trim() ? { costAndProfitData: { itemCost: num(v.cost) } } : {}),
    discount: v.discountType === "NONE" ? { type: "NONE", value: 0 } : { type: v.discountType, value: discountValue },
    ...(ppuGiven
      ? {
          pricePerUnitData: {
            totalQuantity: num(v.ppuTotalQuantity),
            totalMeasurementUnit: v.ppuTotalUnit || undefined,
            baseQuantity: num(v.ppuBaseQuantity),
            baseMeasurementUnit: v.ppuBaseUnit || undefined,
          },
        }
      : opts.isNew
        ? {}
        : { pricePerUnitData: null }),
    ...(num(v.weight) !== undefined ? { weight: num(v.weight) } : {}),
    sku: v.sku.trim(),
    brand: optionalText(v.brand),
    ribbon: optionalText(v.ribbon),
    additionalInfoSections: sectionRows.map(({ s }) => ({ title: s.title, description: s.description })),
    seoData: { tags: seoTags, settings: seoExtra.settings ?? {} },
    productOptions: optionRows.map(({ o }, k) => ({
      name: o.name,
      optionType: o.type,
      choices: choiceRows[k].map(({ c }) => (o.type === "color" ? { value: c.color, description: c.name } : { value: c.name, description: c.name })),
    })),
    manageVariants: hasOptions,
    // Tracking and quantities only from someone who may change stock (their form shows them disabled otherwise).
    ...(opts.stock
      ? {
          stock: {
            trackInventory: v.trackInventory,
            ...(!hasOptions ? (v.trackInventory ? { quantity: num(v.quantity) ?? 0 } : { inStock: v.inStock }) : {}),
          },
        }
      : {}),
  };
  if (product.brand === undefined) delete product.brand;
  if (product.ribbon === undefined) delete product.ribbon;
  if (!product.sku && opts.isNew) delete product.sku;
  // The description is written only when it was edited: the stored nodes may hold more than Markdown can say.
  // Markdown as typed, or HTML pasted from another shop.
  if (opts.isNew || v.description !== v.descriptionOriginal) product.richDescription = descriptionToRich(v.description);
  if (hasOptions) {
    product.variants = v.variants.map((row) => ({
      choices: row.choices,
      ...(num(row.price) !== undefined ? { price: num(row.price) } : {}),
      ...(num(row.cost) !== undefined ? { cost: num(row.cost) } : {}),
      ...(num(row.weight) !== undefined ? { weight: num(row.weight) } : {}),
      sku: row.sku.trim(),
      visible: row.visible,
      ...(opts.stock ? { stock: v.trackInventory ? { quantity: num(row.quantity) ?? 0 } : { inStock: row.inStock } } : {}),
    }));
  }

  return {
    product,
    rows: { options: optionRows.map(({ i }) => i), choices: choiceRows.map((cs) => cs.map(({ j }) => j)), sections: sectionRows.map(({ i }) => i) },
  };
}

/**
 * Which input a service's field path of this request shows at: its indices turned back into the form's rows, then
 * the posted input it is or lies under. Paths no input is named by show at the nearest one (an option's at its name).
 */
export function editorFieldOf(rows: EditorRows, posted: Record<string, string>) {
  const at = fieldAt(posted, {
    "product.richDescription": NAMES.description,
    "product.priceData": NAMES.price,
    "product.discount": NAMES.discountValue,
    "product.seoData": NAMES.seoTitle,
    [OPTIONS]: optionName(0, "name"),
    ...Object.fromEntries(rows.options.map((i) => [`${OPTIONS}[${i}]`, optionName(i, "name")])),
  });
  return (path: string) => {
    const k = path.startsWith(`${OPTIONS}[`) ? Number(/^\[(\d+)\]/.exec(path.slice(OPTIONS.length))?.[1]) : Number.NaN;
    const choices = Number.isNaN(k) ? path : atRow(path, `${OPTIONS}[${k}].choices`, rows.choices[k] ?? []);
    return at(atRow(atRow(choices, OPTIONS, rows.options), SECTIONS, rows.sections));
  };
}
