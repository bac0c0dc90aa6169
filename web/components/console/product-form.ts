/**
 * The product editor's form, shared by the page (which draws it and, with JavaScript, keeps the variant grid in step
 * with the options as they are typed) and the action (which reads it back). Every value is the text the merchant
 * typed, so a refused save shows the form exactly as it was. Inputs are named by the field paths of the API's product
 * request (`product.productOptions[0].choices[1].description`), rows by their place on the form;
 * web/components/console/product-form.server.ts turns the values into that request and its refusals back into rows.
 */

export const MAX_OPTIONS = 6;
export const MAX_CHOICES = 100;

/** The input names of the product's own fields. The SEO fields and the hidden ones are the form's, not the request's. */
export const NAMES = {
  name: "product.name",
  slug: "product.slug",
  description: "product.description",
  descriptionOriginal: "descriptionOriginal",
  productType: "product.productType",
  visible: "product.visible",
  price: "product.priceData.price",
  cost: "product.costAndProfitData.itemCost",
  discountType: "product.discount.type",
  discountValue: "product.discount.value",
  ppuTotalQuantity: "product.pricePerUnitData.totalQuantity",
  ppuTotalUnit: "product.pricePerUnitData.totalMeasurementUnit",
  ppuBaseQuantity: "product.pricePerUnitData.baseQuantity",
  ppuBaseUnit: "product.pricePerUnitData.baseMeasurementUnit",
  weight: "product.weight",
  sku: "product.sku",
  brand: "product.brand",
  ribbon: "product.ribbon",
  trackInventory: "product.stock.trackInventory",
  quantity: "product.stock.quantity",
  inStock: "product.stock.inStock",
  seoTitle: "seoTitle",
  seoDescription: "seoDescription",
  seoExtra: "seoExtra",
} as const;

export const OPTIONS = "product.productOptions";
export const VARIANTS = "product.variants";
export const SECTIONS = "product.additionalInfoSections";

/** The input name of a field of option row `i`. */
export function optionName(i: number, field: "name" | "optionType"): string {
  return `${OPTIONS}[${i}].${field}`;
}

/** The input name of a field of choice row `j` of option row `i` (`description` is its name, `value` its colour). */
export function choiceName(i: number, j: number, field: "description" | "value"): string {
  return `${OPTIONS}[${i}].choices[${j}].${field}`;
}

/** The request field of each column of the variant grid. */
const VARIANT_FIELDS = {
  choices: "choices",
  price: "price",
  cost: "cost",
  sku: "sku",
  weight: "weight",
  visible: "visible",
  quantity: "stock.quantity",
  inStock: "stock.inStock",
} as const;

/** The input name of a column of variant row `k`. */
export function variantName(k: number, field: keyof VariantValues): string {
  return `${VARIANTS}[${k}].${VARIANT_FIELDS[field]}`;
}

/** The input name of a field of information section row `i`. */
export function sectionName(i: number, field: keyof SectionValues): string {
  return `${SECTIONS}[${i}].${field}`;
}

export interface ChoiceValues {
  /** The choice's name (the API's `description`), what shoppers pick and variants are keyed by. */
  name: string;
  /** Colour options only: the swatch colour, #rrggbb (the API's `value`). */
  color: string;
}

export interface OptionValues {
  name: string;
  type: "drop_down" | "color";
  choices: ChoiceValues[];
}

export interface VariantValues {
  /** option name -> choice name */
  choices: Record<string, string>;
  price: string;
  cost: string;
  sku: string;
  weight: string;
  visible: boolean;
  quantity: string;
  inStock: boolean;
}

export interface SectionValues {
  title: string;
  description: string;
}

export interface EditorValues {
  name: string;
  slug: string;
  /** Markdown, turned into the Ricos nodes the API stores. */
  description: string;
  /** The description as loaded: an unchanged text is not written back (it may hold nodes Markdown cannot). */
  descriptionOriginal: string;
  productType: "physical" | "digital";
  visible: boolean;
  price: string;
  cost: string;
  discountType: "NONE" | "AMOUNT" | "PERCENT";
  discountValue: string;
  ppuTotalQuantity: string;
  ppuTotalUnit: string;
  ppuBaseQuantity: string;
  ppuBaseUnit: string;
  weight: string;
  sku: string;
  brand: string;
  ribbon: string;
  trackInventory: boolean;
  /** Stock of a product without options (one variant). */
  quantity: string;
  inStock: boolean;
  seoTitle: string;
  seoDescription: string;
  /** SEO tags and settings the form does not show, carried through unchanged (JSON). */
  seoExtra: string;
  sections: SectionValues[];
  options: OptionValues[];
  variants: VariantValues[];
}

/** The options that make variants: named, with at least one named choice (blank rows are the form's spare rows). */
export function usedOptions(options: OptionValues[]): OptionValues[] {
  return options
    .map((o) => ({ ...o, name: o.name.trim(), choices: o.choices.filter((c) => c.name.trim()).map((c) => ({ ...c, name: c.name.trim() })) }))
    .filter((o) => o.name && o.choices.length);
}

/** Every combination of the options' choices, in the order the catalogue generates variants. */
export function combinations(options: OptionValues[]): Record<string, string>[] {
  let out: Record<string, string>[] = [{}];
  for (const o of usedOptions(options)) out = out.flatMap((combo) => o.choices.map((c) => ({ ...combo, [o.name]: c.name })));
  return out;
}

export function variantKey(choices: Record<string, string>): string {
  return JSON.stringify(Object.entries(choices).sort(([a], [b]) => a.localeCompare(b)));
}

/**
 * The variant grid for the current options: a row per combination, keeping what was typed for combinations that
 * already had a row, and the product's own values for new ones. (At most 1,000, the catalogue's limit.)
 */
export function syncVariants(values: Pick<EditorValues, "options" | "variants" | "price" | "trackInventory">): VariantValues[] {
  const existing = new Map(values.variants.map((v) => [variantKey(v.choices), v]));
  return combinations(values.options)
    .slice(0, 1000)
    .map(
      (choices) =>
        existing.get(variantKey(choices)) ?? {
          choices,
          price: values.price,
          cost: "",
          sku: "",
          weight: "",
          visible: true,
          quantity: "0",
          inStock: true,
        },
    );
}

/** The form always offers one blank choice per option and one blank option (up to the limits), to type into. */
export function withSpareRows(options: OptionValues[]): OptionValues[] {
  const out = options.map((o) => ({
    ...o,
    choices:
      o.choices.length < MAX_CHOICES && (o.choices.length === 0 || o.choices[o.choices.length - 1].name.trim())
        ? [...o.choices, { name: "", color: "#888888" }]
        : o.choices,
  }));
  const last = out[out.length - 1];
  if (out.length < MAX_OPTIONS && (!last || last.name.trim())) out.push({ name: "", type: "drop_down", choices: [{ name: "", color: "#888888" }] });
  return out;
}

/** The sections plus one blank to add another (at most 10, the catalogue's limit). */
export function withSpareSection(sections: SectionValues[]): SectionValues[] {
  const last = sections[sections.length - 1];
  return sections.length < 10 && (!last || last.title.trim() || last.description.trim()) ? [...sections, { title: "", description: "" }] : sections;
}

/** Reads the editor's form back into its values (every field as typed). */
export function readEditorForm(form: FormData): EditorValues {
  // Browsers send textarea line breaks as CRLF; the values compare and store with LF.
  const text = (name: string) => {
    const v = form.get(name);
    return typeof v === "string" ? v.replace(/\r\n?/g, "\n") : "";
  };
  const on = (name: string) => form.get(name) === "on";
  // The rows of a list posted as `${list}[i].…`.
  const rows = (list: string) => {
    const found = new Set<number>();
    for (const key of form.keys()) {
      const m = key.startsWith(`${list}[`) ? /^(\d+)\]/.exec(key.slice(list.length + 1)) : null;
      if (m) found.add(Number(m[1]));
    }
    // Bounded, so a crafted form cannot make the page draw thousands of rows.
    return [...found].sort((a, b) => a - b).slice(0, 1000);
  };
  const options: OptionValues[] = rows(OPTIONS)
    .slice(0, MAX_OPTIONS + 1)
    .map((i) => ({
      name: text(optionName(i, "name")),
      type: text(optionName(i, "optionType")) === "color" ? "color" : "drop_down",
      choices: rows(`${OPTIONS}[${i}].choices`)
        .slice(0, MAX_CHOICES + 1)
        .map((j) => ({ name: text(choiceName(i, j, "description")), color: text(choiceName(i, j, "value")) || "#888888" })),
    }));
  const variants: VariantValues[] = rows(VARIANTS).map((k) => {
    let choices: Record<string, string> = {};
    try {
      const parsed: unknown = JSON.parse(text(variantName(k, "choices")));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
        choices = Object.fromEntries(Object.entries(parsed).map(([a, b]) => [a, String(b)]));
    } catch {
      // A damaged row is dropped: the grid is rebuilt from the options below.
    }
    const typed = (field: "price" | "cost" | "sku" | "weight" | "quantity") => text(variantName(k, field));
    return {
      choices,
      price: typed("price"),
      cost: typed("cost"),
      sku: typed("sku"),
      weight: typed("weight"),
      visible: on(variantName(k, "visible")),
      quantity: typed("quantity"),
      inStock: on(variantName(k, "inStock")),
    };
  });
  const values: EditorValues = {
    name: text(NAMES.name),
    slug: text(NAMES.slug),
    description: text(NAMES.description),
    descriptionOriginal: text(NAMES.descriptionOriginal),
    productType: text(NAMES.productType) === "digital" ? "digital" : "physical",
    visible: on(NAMES.visible),
    price: text(NAMES.price),
    cost: text(NAMES.cost),
    discountType: (["AMOUNT", "PERCENT"] as const).find((t) => t === text(NAMES.discountType)) ?? "NONE",
    discountValue: text(NAMES.discountValue),
    ppuTotalQuantity: text(NAMES.ppuTotalQuantity),
    ppuTotalUnit: text(NAMES.ppuTotalUnit),
    ppuBaseQuantity: text(NAMES.ppuBaseQuantity),
    ppuBaseUnit: text(NAMES.ppuBaseUnit),
    weight: text(NAMES.weight),
    sku: text(NAMES.sku),
    brand: text(NAMES.brand),
    ribbon: text(NAMES.ribbon),
    trackInventory: on(NAMES.trackInventory),
    quantity: text(NAMES.quantity),
    inStock: on(NAMES.inStock),
    seoTitle: text(NAMES.seoTitle),
    seoDescription: text(NAMES.seoDescription),
    seoExtra: text(NAMES.seoExtra),
    sections: rows(SECTIONS).map((i) => ({ title: text(sectionName(i, "title")), description: text(sectionName(i, "description")) })),
    options,
    variants,
  };
  return { ...values, variants: syncVariants(values) };
}
