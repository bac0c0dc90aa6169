import { automationSettingsPatch, type AutomationSettings, type AutomationSettingsPatch } from "#worker/automations";
import { invalidArgument, type FieldViolation } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { CART_STATUSES, SCHEDULE_STEPS, stepsOn, type SettingsValues } from "./abandoned-carts";

export const CARTS_PAGE_SIZE = 25;

/**
 * The abandoned-cart pages' form handling: the settings form's fields as text (what the merchant typed, kept after an
 * error) to the settings service's patch, and the list's filters from the URL. The rules themselves (ranges, the
 * schedule's order) are the settings service's; here only text becomes numbers.
 */

/** Hours as the form shows them: whole hours plainly, else with up to two decimals. */
const hoursText = (minutes: number) => String(Math.round((minutes / 60) * 100) / 100);

/** The form's values for the stored settings: the steps in use first, then the unused ones (off, empty). */
export function settingsValues(s: AutomationSettings): SettingsValues {
  const steps = Array.from({ length: SCHEDULE_STEPS }, (_, i) => {
    const m = s.recoveryEmailDelaysMinutes[i];
    return m === undefined ? { on: false, hours: "" } : { on: true, hours: hoursText(m) };
  });
  return {
    enabled: s.abandonedCartEnabled,
    idleMinutes: String(s.abandonedCartIdleMinutes),
    steps,
    highValue: s.highValueCartTotal === null ? "" : String(s.highValueCartTotal),
    linkDays: String(s.recoveryLinkDays),
    lowStock: s.lowStockThreshold === null ? "" : String(s.lowStockThreshold),
  };
}

/** The settings form as typed: its fields are named by the settings' API paths, the schedule's by step (stepNOn, stepNHours). */
export function readSettingsForm(form: FormData): SettingsValues {
  const text = (name: string) =>
    String(form.get(name) ?? "")
      .trim()
      .slice(0, 40);
  return {
    enabled: form.get("abandonedCartEnabled") === "on",
    idleMinutes: text("abandonedCartIdleMinutes"),
    steps: Array.from({ length: SCHEDULE_STEPS }, (_, i) => ({ on: form.get(`step${i + 1}On`) === "on", hours: text(`step${i + 1}Hours`) })),
    highValue: text("highValueCartTotal"),
    linkDays: text("recoveryLinkDays"),
    lowStock: text("lowStockThreshold"),
  };
}

/**
 * Text to the service's patch. Text that is not a number is reported at its field here (the service would only see
 * a string); empty high-value and low-stock fields switch those off (null).
 */
export function settingsPatchOf(v: SettingsValues): AutomationSettingsPatch {
  const violations: FieldViolation[] = [];
  const num = (field: string, raw: string, whole: boolean): number | undefined => {
    const ok = whole ? /^\d+$/.test(raw) : /^\d+(\.\d+)?$/.test(raw);
    if (ok) return Number(raw);
    violations.push({
      field,
      description: raw === "" ? "is required" : whole ? "must be a whole number" : "must be a number",
      violatedRule: "FORMAT",
      data: {},
    });
    return undefined;
  };
  const delays = stepsOn(v).map((step, k) => {
    const hours = num(`recoveryEmailDelaysMinutes[${k}]`, v.steps[step - 1].hours, false);
    return hours === undefined ? 0 : Math.round(hours * 60);
  });
  const patch = {
    abandonedCartEnabled: v.enabled,
    abandonedCartIdleMinutes: num("abandonedCartIdleMinutes", v.idleMinutes, true),
    recoveryEmailDelaysMinutes: delays,
    highValueCartTotal: v.highValue === "" ? null : num("highValueCartTotal", v.highValue, false),
    recoveryLinkDays: num("recoveryLinkDays", v.linkDays, true),
    lowStockThreshold: v.lowStock === "" ? null : num("lowStockThreshold", v.lowStock, true),
  };
  if (violations.length) throw invalidArgument(violations);
  return parseWith(automationSettingsPatch, patch);
}

/** A settings field path as the form's input: entry k of the schedule is the k-th step switched on. */
export function settingsFieldOf(v: SettingsValues) {
  const on = stepsOn(v);
  return (path: string) => {
    const entry = /^recoveryEmailDelaysMinutes\[(\d+)\]/.exec(path);
    return { name: entry ? `step${on[Number(entry[1])] ?? 1}Hours` : path };
  };
}

/** The list's filters from the URL: status (ABANDONED, RECOVERED or any) and page. */
export function readCartFilters(url: URL) {
  const raw = url.searchParams.get("status") ?? "";
  const status = (CART_STATUSES as readonly string[]).includes(raw) ? (raw as (typeof CART_STATUSES)[number]) : "";
  const page = Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
  return { status, page };
}
