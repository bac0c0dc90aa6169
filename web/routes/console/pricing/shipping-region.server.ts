import { listOf, moneyOrNull, text, ticked } from "#web/components/console/pricing.server";
import { atRow, fieldAt } from "#web/components/ui/form.server";
import { isBlankOption, isBlankRule, optionPath, rowsFromValues, rulePath } from "#web/components/console/shipping-rows";

/** The shipping region form's action side: its rows as the service's request, and the service's paths as its inputs. */

const R = "shippingRegion";

function kept(raw: string): Record<string, unknown> {
  try {
    const value = JSON.parse(raw) as Record<string, unknown> | null;
    if (!value || typeof value !== "object") return {};
    return Object.fromEntries(
      Object.entries(value).filter(([k, x]) => ["instructions", "deliveryTimeSlot", "pickupDetails"].includes(k) && x !== null),
    );
  } catch {
    return {};
  }
}

/** The rows that go into the request (not blank, not removed), with where each came from in the form. */
function usedRows(v: Record<string, string>) {
  return rowsFromValues(v)
    .map((row, at) => ({ row, at, rules: row.rules.map((rule, ruleAt) => ({ rule, at: ruleAt })).filter(({ rule }) => !isBlankRule(rule)) }))
    .filter(({ row }) => !row.remove && !isBlankOption(row));
}

/** The form's fields (named by API path) as the shipping-region service's request (worker/pricing/schemas.ts shippingRegionInputSchema). */
export function regionRequest(v: Record<string, string>) {
  return {
    name: text(v, `${R}.name`),
    countries: listOf(text(v, `${R}.countries`)),
    subdivisions: listOf(text(v, `${R}.subdivisions`)),
    restOfWorld: ticked(v, `${R}.restOfWorld`),
    options: usedRows(v).map(({ row, rules }) => ({
      ...kept(row.keep),
      code: row.code.trim(),
      title: row.title.trim(),
      kind: row.kind,
      deliveryTime: row.deliveryTime.trim() || null,
      ...(row.rate.trim() ? { rate: moneyOrNull(row.rate.trim()) } : {}),
      freeShippingThreshold: moneyOrNull(row.freeShippingThreshold.trim()),
      rules: rules.map(({ rule }) => ({ basis: rule.basis, operator: rule.operator, value: rule.value.trim(), rate: moneyOrNull(rule.rate.trim()) })),
    })),
  };
}

/**
 * The input a service path shows at: the service counts options and rules in the request, the form by its rows
 * (blank rows were left out); an option's other details show at its code (a pickup address at its kind), a rule's
 * at its value.
 */
export function regionField(path: string, v: Record<string, string>) {
  const used = usedRows(v);
  let p = atRow(
    path,
    `${R}.options`,
    used.map((u) => u.at),
  );
  const option = used.find((u) => p.startsWith(`${optionPath(u.at)}.rules[`));
  if (option)
    p = atRow(
      p,
      `${optionPath(option.at)}.rules`,
      option.rules.map((r) => r.at),
    );
  const shownAt: Record<string, string> = {};
  for (const { at, row } of used) {
    shownAt[optionPath(at)] = `${optionPath(at)}.code`;
    shownAt[`${optionPath(at)}.pickupDetails`] = `${optionPath(at)}.kind`;
    row.rules.forEach((_, j) => {
      shownAt[rulePath(at, j)] = `${rulePath(at, j)}.value`;
    });
  }
  return fieldAt(v, shownAt)(p);
}
