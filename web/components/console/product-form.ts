/**
 * The product editor's form, shared by the page (which draws it and, with JavaScript, keeps the variant grid in step
 * with the options as they are typed) and the action (which reads it back). Every value is the text the merchant
 * typed, so a refused save shows the form exactly as it was. Field names are plain and flat
 * (`option.0.choice.1.name`); web/components/console/product-form.server.ts maps them to and from the API's product.
 */

export const MAX_OPTIONS = 6;
export const MAX_CHOICES = 100;

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
  const indices = (prefix: string) => {
    const found = new Set<number>();
    for (const key of form.keys()) {
      const m = key.startsWith(prefix) ? /^(\d+)\./.exec(key.slice(prefix.length)) : null;
      if (m) found.add(Number(m[1]));
    }
    // Bounded, so a crafted form cannot make the page draw thousands of rows.
    return [...found].sort((a, b) => a - b).slice(0, 1000);
  };
  const options: OptionValues[] = indices("option.")
    .slice(0, MAX_OPTIONS + 1)
    .map((i) => ({
      name: text(`option.${i}.name`),
      type: text(`option.${i}.type`) === "color" ? "color" : "drop_down",
      choices: indices(`option.${i}.choice.`)
        .slice(0, MAX_CHOICES + 1)
        .map((j) => ({ name: text(`option.${i}.choice.${j}.name`), color: text(`option.${i}.choice.${j}.color`) || "#888888" })),
    }));
  const variants: VariantValues[] = indices("variant.").map((k) => {
    let choices: Record<string, string> = {};
    try {
      const parsed: unknown = JSON.parse(text(`variant.${k}.choices`));
      if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
        choices = Object.fromEntries(Object.entries(parsed).map(([a, b]) => [a, String(b)]));
    } catch {
      // A damaged row is dropped: the grid is rebuilt from the options below.
    }
    return {
      choices,
      price: text(`variant.${k}.price`),
      cost: text(`variant.${k}.cost`),
      sku: text(`variant.${k}.sku`),
      weight: text(`variant.${k}.weight`),
      visible: on(`variant.${k}.visible`),
      quantity: text(`variant.${k}.quantity`),
      inStock: on(`variant.${k}.inStock`),
    };
  });
  const values: EditorValues = {
    name: text("name"),
    slug: text("slug"),
    description: text("description"),
    descriptionOriginal: text("descriptionOriginal"),
    productType: text("productType") === "digital" ? "digital" : "physical",
    visible: on("visible"),
    price: text("price"),
    cost: text("cost"),
    discountType: (["AMOUNT", "PERCENT"] as const).find((t) => t === text("discountType")) ?? "NONE",
    discountValue: text("discountValue"),
    ppuTotalQuantity: text("ppuTotalQuantity"),
    ppuTotalUnit: text("ppuTotalUnit"),
    ppuBaseQuantity: text("ppuBaseQuantity"),
    ppuBaseUnit: text("ppuBaseUnit"),
    weight: text("weight"),
    sku: text("sku"),
    brand: text("brand"),
    ribbon: text("ribbon"),
    trackInventory: on("trackInventory"),
    quantity: text("quantity"),
    inStock: on("inStock"),
    seoTitle: text("seoTitle"),
    seoDescription: text("seoDescription"),
    seoExtra: text("seoExtra"),
    sections: indices("section.").map((i) => ({ title: text(`section.${i}.title`), description: text(`section.${i}.description`) })),
    options,
    variants,
  };
  return { ...values, variants: syncVariants(values) };
}

/**
 * Where an API field path (`product.productOptions[0].choices[1].description`) is on the form: the id of the input,
 * so an error shows next to it. Unknown paths fall back to the summary at the top.
 */
export function formFieldId(apiField: string): string | null {
  const f = apiField.replace(/^product\./, "");
  const simple: Record<string, string> = {
    name: "name",
    slug: "slug",
    description: "description",
    richDescription: "description",
    productType: "productType",
    "priceData.price": "price",
    priceData: "price",
    "costAndProfitData.itemCost": "cost",
    "discount.value": "discountValue",
    "discount.type": "discountType",
    discount: "discountValue",
    "pricePerUnitData.totalQuantity": "ppuTotalQuantity",
    "pricePerUnitData.totalMeasurementUnit": "ppuTotalUnit",
    "pricePerUnitData.baseQuantity": "ppuBaseQuantity",
    "pricePerUnitData.baseMeasurementUnit": "ppuBaseUnit",
    weight: "weight",
    sku: "sku",
    brand: "brand",
    ribbon: "ribbon",
    "stock.quantity": "quantity",
    productOptions: "option-0-name",
  };
  if (simple[f]) return simple[f];
  let m = /^productOptions\[(\d+)\]\.choices\[(\d+)\]\.(description|value)$/.exec(f);
  if (m) return m[3] === "value" ? `option-${m[1]}-choice-${m[2]}-color` : `option-${m[1]}-choice-${m[2]}-name`;
  m = /^productOptions\[(\d+)\](?:\.(name|choices))?/.exec(f);
  if (m) return `option-${m[1]}-name`;
  m = /^variants\[(\d+)\]\.(price|cost|sku|weight|stock\.quantity)/.exec(f);
  if (m) return `variant-${m[1]}-${m[2] === "stock.quantity" ? "quantity" : m[2]}`;
  m = /^additionalInfoSections\[(\d+)\]\.(title|description)$/.exec(f);
  if (m) return `section-${m[1]}-${m[2]}`;
  if (f.startsWith("seoData")) return "seoTitle";
  return null;
}
