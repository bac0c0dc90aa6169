/**
 * The shipping region form's option rows, shared by its page (to draw them) and its action (to read them). Each
 * option is a row of fields named `o<i>-…`, its rules rows `o<i>-r<j>-…`; the counts travel as hidden fields, so the
 * form works without JavaScript: the page always adds one blank option row and one blank rule row per option, and
 * blank rows are left out of the request. Details the form does not edit (a pickup address, instructions, a
 * delivery time slot) travel in `o<i>-keep` as the service answered them and go back unchanged.
 */

export interface RuleRow {
  basis: string;
  op: string;
  value: string;
  rate: string;
}

export interface OptionRow {
  code: string;
  title: string;
  kind: string;
  time: string;
  rate: string;
  free: string;
  keep: string;
  remove: boolean;
  rules: RuleRow[];
}

const MAX_ROWS = 60;
const count = (raw: string | undefined) => Math.min(Math.max(0, Math.floor(Number(raw) || 0)), MAX_ROWS);
const blankRule = (): RuleRow => ({ basis: "WEIGHT", op: "GT", value: "", rate: "" });

/** The rows as posted (what was typed, blank rows included). */
export function rowsFromValues(v: Record<string, string>): OptionRow[] {
  const rows: OptionRow[] = [];
  for (let i = 0; i < count(v.optionRows); i++) {
    const p = `o${i}-`;
    const rules: RuleRow[] = [];
    for (let j = 0; j < count(v[`${p}ruleRows`]); j++) {
      rules.push({
        basis: v[`${p}r${j}-basis`] ?? "WEIGHT",
        op: v[`${p}r${j}-op`] ?? "GT",
        value: v[`${p}r${j}-value`] ?? "",
        rate: v[`${p}r${j}-rate`] ?? "",
      });
    }
    rows.push({
      code: v[`${p}code`] ?? "",
      title: v[`${p}title`] ?? "",
      kind: v[`${p}kind`] ?? "DELIVERY",
      time: v[`${p}time`] ?? "",
      rate: v[`${p}rate`] ?? "",
      free: v[`${p}free`] ?? "",
      keep: v[`${p}keep`] ?? "",
      remove: `${p}remove` in v,
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
    time: o.deliveryTime ?? "",
    rate: o.rate,
    free: o.freeShippingThreshold ?? "",
    keep: JSON.stringify({ instructions: o.instructions, deliveryTimeSlot: o.deliveryTimeSlot, pickupDetails: o.pickupDetails }),
    remove: false,
    rules: [...o.rules.map((r) => ({ basis: r.basis, op: r.operator, value: String(r.value), rate: r.rate })), blankRule()],
  }));
  rows.push({ code: "", title: "", kind: "DELIVERY", time: "", rate: "", free: "", keep: "", remove: false, rules: [blankRule()] });
  return rows;
}

export const isBlankOption = (o: OptionRow) => !o.code.trim() && !o.title.trim() && !o.rate.trim() && !o.free.trim() && !o.time.trim();
export const isBlankRule = (r: RuleRow) => !r.value.trim() && !r.rate.trim();
