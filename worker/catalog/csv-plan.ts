import type { Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { toMajor, toMinor } from "#worker/platform/money";
import { parseWith } from "#worker/platform/validation";
import { optionColumns, VARIANT_COLUMNS } from "./csv-columns";
import type { CellError } from "./csv-parse";
import type { FileProduct, FileVariant } from "./csv-products";
import { prepareCreateProduct } from "./product-writes";
import { productInputSchema, type ProductInput, type ProductPatch, type VariantOverride } from "./schemas";
import { v1Description, type LoadedProduct } from "./shapes";
import { choicesKey } from "./variants";

/**
 * Planning the import of one product of a CSV file: what the file says (csv-products.ts) against what is stored.
 * Every rule a row must keep is the product service's (productInputSchema, prepareCreateProduct); this file maps
 * the file's product to those inputs and their errors back to the file's rows and columns.
 */

/** What importing one product does: the service calls to make, or why it cannot be imported. */
export interface ProductPlan {
  action: "create" | "update" | "unchanged";
  /** createProduct's input (create). */
  create?: ProductInput;
  /** updateProduct's patch (update), only the fields that change. */
  patch?: ProductPatch;
  /** resetProductVariants before the overrides: an override the file leaves empty goes back to the product's value. */
  resetVariants?: boolean;
  /** updateProductVariants' overrides, by choices. */
  overrides?: VariantOverride[];
  /** updateInventoryItem's change (variants by choices; ids are looked up after the product is written). */
  stock?: { trackQuantity?: boolean; variants: { choices: Record<string, string>; quantity?: number; inStock?: boolean }[] };
  /** Collection membership to change, by collection id. */
  collections?: { add: string[]; remove: string[] };
}

export interface PlanContext {
  ctx: Ctx;
  /** Collection ids by slug (every collection of the store). */
  collectionIds: Map<string, string>;
  /** Whether the importer may change stock (inventory.write); without it, a stock change is a row error. */
  mayChangeStock: boolean;
}

/** Where a service's field path points in the file: a column, and the row of the variant it names if any. */
function columnOf(field: string, p: FileProduct, overrideRows: number[]): { row: number; column: string } {
  const f = field.replace(/^product\./, "");
  const variant = /^variants\[(\d+)\]\.?(.*)$/.exec(f);
  if (variant) {
    const row = overrideRows[Number(variant[1])] ?? p.rows[0].row;
    const rest = variant[2];
    const column = rest.startsWith("price")
      ? "Variant price"
      : rest.startsWith("cost")
        ? "Variant cost"
        : rest.startsWith("sku")
          ? "Variant SKU"
          : rest.startsWith("weight")
            ? "Variant weight"
            : rest.startsWith("visible")
              ? "Variant visible"
              : rest.startsWith("stock")
                ? "Quantity"
                : optionColumns(1)[1];
    return { row, column };
  }
  const option = /^productOptions\[(\d+)\]\.?(.*)$/.exec(f);
  if (option) return { row: p.rows[0].row, column: optionColumns(Number(option[1]) + 1)[option[2].startsWith("name") ? 0 : 1] };
  const top = f.split(/[.[]/)[0];
  const columns: Record<string, string> = {
    slug: "Handle",
    name: "Name",
    description: "Description",
    brand: "Brand",
    ribbon: "Ribbon",
    visible: "Visible",
    productType: "Product type",
    priceData: "Price",
    discount: "Discount",
    sku: "SKU",
    weight: "Weight",
    stock: "Track inventory",
    manageVariants: "Variant price",
    productOptions: optionColumns(1)[0],
  };
  return { row: p.rows[0].row, column: columns[top] ?? "" };
}

/**
 * Plans one product of the file against the product stored under its Handle (or none: a new product). The product
 * as the file describes it must pass the same checks as creating it through the API (productInputSchema and
 * prepareCreateProduct, which write nothing), so the dry run and the apply refuse exactly what the services refuse.
 */
export function planProduct(p: FileProduct, current: LoadedProduct | null, pc: PlanContext): { plan: ProductPlan | null; errors: CellError[] } {
  const errors: CellError[] = [];
  const collectionIds = p.collections ? collectionIdsOf(p, p.collections, pc.collectionIds, errors) : undefined;
  // The variants the file gives their own data.
  const own = p.variants.filter((v) => v.price !== null || v.cost !== null || v.sku !== null || v.weight !== null || !v.visible);
  const pl: Planning = {
    p,
    current,
    currency: pc.ctx.currency,
    options: fileOptions(p, current),
    own,
    overrides: own.map(variantOverride),
    trackInventory: p.trackInventory ?? current?.row.trackInventory ?? p.variants.some((v) => v.quantity !== null),
  };
  const after = describedProduct(pl);
  missingFields(pl, after, errors);
  if (errors.length) return { plan: null, errors };
  const input = checkedInput(pc.ctx, pl, after, errors);
  if (!input) return { plan: null, errors };

  const stock = plannedStock(pl);
  if (stock.change && !pc.mayChangeStock) {
    errors.push(stockRefusal(pl, stock));
    return { plan: null, errors };
  }
  const membership = membershipChange(collectionIds, current);
  if (!current) return { plan: createPlan(pl, input, stock, membership), errors };
  return { plan: updatePlan(pl, current, input, stock.change, membership), errors };
}

/** What the steps of one product's plan share. */
interface Planning {
  p: FileProduct;
  current: LoadedProduct | null;
  currency: string;
  /** The product's options as the file names them. */
  options: PlannedOption[];
  /** The variants the file gives data of their own, and their overrides (same order). */
  own: FileVariant[];
  overrides: VariantOverride[];
  trackInventory: boolean;
}

type PlannedOption = ReturnType<typeof fileOptions>[number];

type StockVariants = NonNullable<ProductPlan["stock"]>["variants"];

/** What a product's stock becomes: the change to make (if any) and the uniform values a new product starts with. */
interface StockPlan {
  change: ProductPlan["stock"];
  variants: StockVariants;
  trackChanges: boolean;
  uniformQuantity: number | null | undefined;
  uniformInStock: boolean | null | undefined;
}

const majorOf = (minor: number | null | undefined, currency: string) =>
  minor === null || minor === undefined ? undefined : toMajor(minor, currency);

const storedVariant = (current: LoadedProduct | null, choices: Record<string, string>) =>
  current?.variants.find((v) => choicesKey(v.choices) === choicesKey(choices));

/** Collections by slug: the ids of those that exist; each slug that names none is an error. */
function collectionIdsOf(p: FileProduct, slugs: string[], bySlug: Map<string, string>, errors: CellError[]): string[] {
  const ids: string[] = [];
  for (const slug of slugs) {
    const id = bySlug.get(slug);
    if (id) ids.push(id);
    else
      errors.push({
        row: p.rows[0].row,
        column: "Collections",
        message: `names no collection "${slug}" (use the collections' URL names, separated by commas)`,
      });
  }
  return ids;
}

/** Options: the file's names and values, keeping the type and colour code of choices that exist. */
function fileOptions(p: FileProduct, current: LoadedProduct | null) {
  return p.options.map((o) => {
    const existing = current?.row.productOptions.find((x) => x.name === o.name);
    return {
      name: o.name,
      optionType: existing?.optionType ?? ("drop_down" as const),
      choices: o.values.map((v) => {
        const prev = existing?.choices.find((c) => c.description === v);
        return { value: prev?.value ?? v, description: v, visible: prev?.visible ?? true };
      }),
    };
  });
}

/** A variant's override: only the values it has of its own (a hidden variant is one). */
function variantOverride(v: Pick<FileVariant, "choices" | "price" | "cost" | "sku" | "weight" | "visible">): VariantOverride {
  return {
    choices: v.choices,
    ...(v.price !== null ? { price: v.price } : {}),
    ...(v.cost !== null ? { cost: v.cost } : {}),
    ...(v.sku !== null ? { sku: v.sku } : {}),
    ...(v.weight !== null ? { weight: v.weight } : {}),
    ...(!v.visible ? { visible: false } : {}),
  };
}

/** The whole product as the file describes it (fields the file leaves out keep their stored values). */
function describedProduct(pl: Planning): Record<string, unknown> {
  const { p, overrides } = pl;
  const row = pl.current?.row;
  return {
    name: p.name || row?.name || "",
    slug: p.slug,
    productType: p.productType ?? row?.productType ?? "physical",
    description: p.description ?? (row ? v1Description(row) : ""),
    sku: p.sku ?? row?.sku ?? undefined,
    visible: p.visible ?? row?.visible ?? true,
    weight: p.weight ?? row?.weight ?? undefined,
    priceData: { price: p.price ?? majorOf(row?.price, pl.currency) },
    ...(p.discount
      ? { discount: p.discount }
      : row && row.discountType !== "NONE"
        ? { discount: { type: row.discountType, value: row.discountValue } }
        : {}),
    ribbon: p.ribbon ?? row?.ribbon ?? undefined,
    brand: p.brand ?? row?.brand ?? undefined,
    manageVariants: overrides.length > 0 || (row?.manageVariants ?? false),
    productOptions: p.has(optionColumns(1)[0])
      ? pl.options
      : (row?.productOptions.map((o) => ({
          name: o.name,
          optionType: o.optionType,
          choices: o.choices.map((c) => ({ value: c.value, description: c.description, visible: c.visible })),
        })) ?? []),
    stock: { trackInventory: pl.trackInventory },
    variants: overrides,
  };
}

/** What a new product needs that the file leaves empty, and a product type the store does not have. */
function missingFields(pl: Planning, after: Record<string, unknown>, errors: CellError[]): void {
  const { p } = pl;
  if (!after.name && !pl.current) errors.push({ row: p.rows[0].row, column: "Name", message: "is required for a new product" });
  if (after.priceData && (after.priceData as { price?: number }).price === undefined) {
    errors.push({ row: p.rows[0].row, column: "Price", message: "is required for a new product" });
  }
  if (p.productType && !["physical", "digital"].includes(p.productType)) {
    errors.push({ row: p.rows[0].row, column: "Product type", message: `must be physical or digital (got "${p.productType}")` });
  }
}

/** The product service's own checks, which write nothing; their field violations become errors on rows and columns. */
function checkedInput(ctx: Ctx, pl: Planning, after: Record<string, unknown>, errors: CellError[]): ProductInput | null {
  try {
    const input = parseWith(productInputSchema, after, "product");
    prepareCreateProduct(ctx, input, pl.p.slug);
    return input;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const overrideRows = pl.own.map((v) => v.row);
    for (const v of err.fieldViolations ?? [{ field: "", description: err.description }]) {
      const at = columnOf(v.field, pl.p, overrideRows);
      errors.push({ row: at.row, column: at.column, message: v.description });
    }
    return null;
  }
}

/** Stock: what differs from the stored (or, for a new product, the created) state. */
function plannedStock(pl: Planning): StockPlan {
  const { p, current, trackInventory } = pl;
  const row = current?.row;
  const quantities = p.variants.map((v) => v.quantity);
  const inStocks = p.variants.map((v) => v.inStock);
  const uniformQuantity = quantities.every((q) => q === quantities[0]) ? quantities[0] : undefined;
  const uniformInStock = inStocks.every((s) => s === inStocks[0]) ? inStocks[0] : undefined;
  const variants: StockVariants = [];
  for (const v of p.variants) {
    const stored = storedVariant(current, v.choices);
    if (trackInventory && v.quantity !== null) {
      const now = stored && row?.trackInventory ? (stored.quantity ?? 0) : current ? null : (uniformQuantity ?? 0);
      if (now !== v.quantity) variants.push({ choices: v.choices, quantity: v.quantity });
    } else if (!trackInventory && v.inStock !== null) {
      const now = stored && !row?.trackInventory ? stored.inStock : current ? null : (uniformInStock ?? true);
      if (now !== v.inStock) variants.push({ choices: v.choices, inStock: v.inStock });
    }
  }
  const trackChanges = row ? row.trackInventory !== trackInventory : false;
  const change = trackChanges || variants.length ? { ...(trackChanges ? { trackQuantity: trackInventory } : {}), variants } : undefined;
  return { change, variants, trackChanges, uniformQuantity, uniformInStock };
}

/** The error for a stock change the importer may not make, on the row of the first variant it changes. */
function stockRefusal(pl: Planning, stock: StockPlan): CellError {
  const { p, trackInventory } = pl;
  const at = stock.variants.length ? stock.variants[0] : null;
  const rowOf = at ? p.variants.find((v) => choicesKey(v.choices) === choicesKey(at.choices))!.row : p.rows[0].row;
  return {
    row: rowOf,
    column: stock.trackChanges ? "Track inventory" : trackInventory ? "Quantity" : "In stock",
    message: "changes stock, which needs the inventory.write permission",
  };
}

/** Collection membership to change, or undefined when it stays as it is. */
function membershipChange(collectionIds: string[] | undefined, current: LoadedProduct | null): ProductPlan["collections"] {
  const collections = collectionIds
    ? {
        add: collectionIds.filter((id) => !current?.collectionIds.includes(id)),
        remove: (current?.collectionIds ?? []).filter((id) => !collectionIds.includes(id)),
      }
    : undefined;
  return collections && (collections.add.length || collections.remove.length) ? collections : undefined;
}

/** A new product: created with the file's stock settings, then the stock of variants that differ. */
function createPlan(pl: Planning, input: ProductInput, stock: StockPlan, membership: ProductPlan["collections"]): ProductPlan {
  const { trackInventory } = pl;
  const create: ProductInput = {
    ...input,
    stock: { trackInventory, ...(trackInventory ? { quantity: stock.uniformQuantity ?? 0 } : { inStock: stock.uniformInStock ?? true }) },
  };
  return { action: "create", create, stock: stock.variants.length ? { variants: stock.variants } : undefined, collections: membership };
}

/** An update: only what differs from the stored product, or "unchanged". */
function updatePlan(
  pl: Planning,
  current: LoadedProduct,
  input: ProductInput,
  stock: ProductPlan["stock"],
  membership: ProductPlan["collections"],
): ProductPlan {
  const patch = productPatch(pl, current.row, input);
  const { resetVariants, changed } = changedOverrides(pl);
  // After a reset every variant has the product's values, so each gets back all of its own.
  const overrides = resetVariants ? overridesAfterReset(pl) : changed;
  const changes = Object.keys(patch).length > 0 || resetVariants || overrides.length > 0 || !!stock || !!membership;
  if (!changes) return { action: "unchanged" };
  return {
    action: "update",
    patch: Object.keys(patch).length ? patch : undefined,
    resetVariants,
    overrides: overrides.length ? overrides : undefined,
    stock,
    collections: membership,
  };
}

/** updateProduct's patch: the product fields the file changes. */
function productPatch(pl: Planning, r: LoadedProduct["row"], input: ProductInput): ProductPatch {
  const { p, currency } = pl;
  const patch: ProductPatch = {};
  if (p.name && p.name !== r.name) patch.name = p.name;
  // The file holds the description as the export writes it (HTML, or plain text when that says the same).
  if (p.description !== undefined && p.description !== v1Description(r)) patch.description = p.description;
  if (p.brand !== undefined && (p.brand || null) !== r.brand) patch.brand = p.brand || null;
  if (p.ribbon !== undefined && (p.ribbon || null) !== r.ribbon) patch.ribbon = p.ribbon || null;
  if (p.visible !== undefined && p.visible !== r.visible) patch.visible = p.visible;
  if (p.productType && p.productType !== r.productType) patch.productType = input.productType;
  if (p.price !== undefined && toMinor(p.price, currency) !== r.price) patch.priceData = { price: p.price };
  if (p.discount && (p.discount.type !== r.discountType || (p.discount.type !== "NONE" && p.discount.value !== r.discountValue))) {
    patch.discount = p.discount.type === "NONE" ? null : p.discount;
  }
  if (p.sku !== undefined && (p.sku || null) !== r.sku) patch.sku = p.sku;
  if (p.weight !== undefined && p.weight !== r.weight) patch.weight = p.weight;
  const storedOptions = JSON.stringify(r.productOptions.map((o) => [o.name, o.choices.map((c) => c.description)]));
  if (p.has(optionColumns(1)[0]) && JSON.stringify(pl.options.map((o) => [o.name, o.choices.map((c) => c.description)])) !== storedOptions) {
    patch.productOptions = input.productOptions;
  }
  if (pl.overrides.length && !r.manageVariants) patch.manageVariants = true;
  return patch;
}

/** Variant overrides that differ from what is stored; an override the file clears resets them all first. */
function changedOverrides(pl: Planning): { resetVariants: boolean; changed: VariantOverride[] } {
  const { p, currency } = pl;
  let resetVariants = false;
  const changed: VariantOverride[] = [];
  if (!VARIANT_COLUMNS.slice(0, 5).some((c) => p.has(c))) return { resetVariants, changed };
  // Only the variant columns the file has are compared (an absent column leaves that value as it is).
  const fields = (
    [
      ["Variant price", "price"],
      ["Variant cost", "cost"],
      ["Variant SKU", "sku"],
      ["Variant weight", "weight"],
      ["Variant visible", "visible"],
    ] as const
  ).filter(([column]) => p.has(column));
  for (const v of p.variants) {
    const stored = storedVariant(pl.current, v.choices);
    const wanted = {
      price: v.price === null ? null : toMinor(v.price, currency),
      cost: v.cost === null ? null : toMinor(v.cost, currency),
      sku: v.sku,
      weight: v.weight,
      visible: v.visible,
    };
    const now = stored
      ? { price: stored.price, cost: stored.cost, sku: stored.sku, weight: stored.weight, visible: stored.visible }
      : { price: null, cost: null, sku: null, weight: null, visible: true };
    const differs = fields.filter(([, f]) => wanted[f] !== now[f]);
    // Going back to "the product's value" (an empty cell, or visible again) has no override: reset them all.
    if (differs.some(([, f]) => (f === "visible" ? wanted.visible : wanted[f] === null))) resetVariants = true;
    const o = pl.overrides[pl.own.indexOf(v)];
    if (differs.length && o) changed.push(o);
  }
  return { resetVariants, changed };
}

/** Every variant's own values after a reset: the file's, and the stored ones of columns the file does not have. */
function overridesAfterReset(pl: Planning): VariantOverride[] {
  const { p, currency } = pl;
  return p.variants
    .map((v) => {
      const stored = storedVariant(pl.current, v.choices);
      const pick = <T>(column: string, file: T | null, kept: T | null | undefined) => (p.has(column) ? file : (kept ?? null));
      const price = pick("Variant price", v.price, majorOf(stored?.price, currency));
      const cost = pick("Variant cost", v.cost, majorOf(stored?.cost, currency));
      const sku = pick("Variant SKU", v.sku, stored?.sku);
      const weight = pick("Variant weight", v.weight, stored?.weight);
      const visible = p.has("Variant visible") ? v.visible : (stored?.visible ?? true);
      return variantOverride({ choices: v.choices, price, cost, sku, weight, visible });
    })
    .filter((o) => Object.keys(o).length > 1);
}
