/**
 * The shipping region form's option rows, shared by its page (to draw them) and its action (to read them). Each
 * option is a row of inputs named by their API path, `shippingRegion.options[i].…`, its rules rows
 * `shippingRegion.options[i].rules[j].…`, where i and j count the form's rows; the counts travel as hidden fields, so
 * the form works without JavaScript: the page always adds one blank option row and one blank rule row per option, and
 * blank rows are left out of the request. Details the form does not edit (a pickup address, instructions, a delivery
 * time slot) travel in `o<i>-keep` as the service answered them and go back unchanged.
 */

export interface RuleRow {
  basis: string;
  operator: string;
  value: string;
  rate: string;
}

export interface OptionRow {
  code: string;
  title: string;
  kind: string;
  deliveryTime: string;
  rate: string;
  freeShippingThreshold: string;
  keep: string;
  remove: boolean;
  rules: RuleRow[];
}

/** The API path of the form's option row i, and of its rule row j. */
export const optionPath = (i: number) => `shippingRegion.options[${i}]`;
export const rulePath = (i: number, j: number) => `${optionPath(i)}.rules[${j}]`;

const MAX_ROWS = 60;
const count = (raw: string | undefined) => Math.min(Math.max(0, Math.floor(Number(raw) || 0)), MAX_ROWS);
const blankRule = (): RuleRow => ({ basis: "WEIGHT", operator: "GT", value: "", rate: "" });

/** The rows as posted (what was typed, blank rows included). */
export function rowsFromValues(v: Record<string, string>): OptionRow[] {
  const rows: OptionRow[] = [];
  for (let i = 0; i < count(v.optionRows); i++) {
    const o = (name: string, otherwise = "") => v[`${optionPath(i)}.${name}`] ?? otherwise;
    const rules: RuleRow[] = [];
    for (let j = 0; j < count(v[`o${i}-ruleRows`]); j++) {
      const r = (name: string, otherwise = "") => v[`${rulePath(i, j)}.${name}`] ?? otherwise;
      rules.push({ basis: r("basis", "WEIGHT"), operator: r("operator", "GT"), value: r("value"), rate: r("rate") });
    }
    rows.push({
      code: o("code"),
      title: o("title"),
      kind: o("kind", "DELIVERY"),
      deliveryTime: o("deliveryTime"),
      rate: o("rate"),
      freeShippingThreshold: o("freeShippingThreshold"),
      keep: v[`o${i}-keep`] ?? "",
      remove: `o${i}-remove` in v,
      rules,
    });
  }
  return rows;
}

/** The stored options as rows, each with a blank rule row, and one blank option row to add an option. */
export function rowsFromOptions(
  options: {
    code: string;
    title: string;
    kind: string;
    deliveryTime: string | null;
    rate: string;
    freeShippingThreshold: string | null;
    instructions: string | null;
    deliveryTimeSlot: unknown;
    pickupDetails: unknown;
    rules: { basis: string; operator: string; value: string | number; rate: string }[];
  }[],
): OptionRow[] {
  const rows: OptionRow[] = options.map((o) => ({
    code: o.code,
    title: o.title,
    kind: o.kind,
    deliveryTime: o.deliveryTime ?? "",
    rate: o.rate,
    freeShippingThreshold: o.freeShippingThreshold ?? "",
    keep: JSON.stringify({ instructions: o.instructions, deliveryTimeSlot: o.deliveryTimeSlot, pickupDetails: o.pickupDetails }),
    remove: false,
    rules: [...o.rules.map((r) => ({ basis: r.basis, operator: r.operator, value: String(r.value), rate: r.rate })), blankRule()],
  }));
  rows.push({
    code: "",
    title: "",
    kind: "DELIVERY",
    deliveryTime: "",
    rate: "",
    freeShippingThreshold: "",
    keep: "",
    remove: false,
    rules: [blankRule()],
  });
  return rows;
}

export const isBlankOption = (o: OptionRow) =>
  !o.code.trim() && !o.title.trim() && !o.rate.trim() && !o.freeShippingThreshold.trim() && !o.deliveryTime.trim();
export const isBlankRule = (r: RuleRow) => !r.value.trim() && !r.rate.trim();
