import { type AppLoadContext, data, redirect } from "react-router";
import { staffOnly } from "#web/console.server";
import { requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import type { Problem } from "#web/components/ui/form";
import type { EditResult } from "#web/components/ui/page";
import { CONSOLE, fieldAt, problemOf } from "#web/components/ui/form.server";
import { orRefuse } from "./problem.server";

/**
 * Server side of the pricing pages (coupons, discount rules, shipping, tax, fees). The forms are thin: each action
 * turns the posted fields into the pricing service's own request (worker/pricing/*) and calls the function the API
 * calls, so every rule and message is the service's. These helpers only convert what a form can post (strings)
 * into what the request holds, leaving anything that is not plainly a number as typed, so the service names it.
 */

/**
 * The posted text fields, as typed, by input name (the API field path); a name posted more than once (the ticks of one
 * list) has its values joined by commas. Kept to refill the form on error.
 */
export function postedValues(form: FormData): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form.entries()) {
    if (typeof v !== "string" || k.length > 100) continue;
    out[k] = k in out ? `${out[k]},${v}`.slice(0, 2000) : v.slice(0, 2000);
  }
  return out;
}

/** A trimmed field ("" when absent). */
export function text(values: Record<string, string>, name: string): string {
  return (values[name] ?? "").trim();
}

/** A checkbox: present (any value) when ticked. */
export function ticked(values: Record<string, string>, name: string): boolean {
  return name in values;
}

/** Empty: null (left out). A plain number: the number. Anything else as typed, for the service to refuse by name. */
export function numberOrRaw(raw: string): number | string | null {
  if (raw === "") return null;
  return /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw;
}

/** Money in the store currency as a decimal string ("12.50"), or null when empty; the service checks the format and precision. */
export function moneyOrNull(raw: string): string | null {
  return raw === "" ? null : raw.replace(/^\$/, "");
}

/**
 * A `datetime-local` value (the console's times are UTC, as the pages say) as the ISO-8601 date-time the service
 * takes; null when empty; anything else as typed, so the service's own message ("must be an ISO-8601 date-time")
 * appears next to the field.
 */
export function utcOrRaw(raw: string): string | null {
  if (raw === "") return null;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/.test(raw)) return `${raw}:00Z`;
  if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/.test(raw)) return `${raw}Z`;
  return raw;
}

/** A comma-, space- or line-separated list ("US, CA") as its items. */
export function listOf(raw: string): string[] {
  return raw
    .split(/[\s,;]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The CRUD functions every pricing resource service has (worker/pricing/resource.ts). */
interface PricingService {
  create(ctx: Ctx, body: unknown): Promise<Record<string, unknown>>;
  update(ctx: Ctx, id: string, body: unknown): Promise<Record<string, unknown>>;
  remove(ctx: Ctx, id: string): Promise<unknown>;
}

/**
 * The save-or-delete action of one resource's edit page (`id` "new" creates). Saving sends `{[wrapper]: request}`
 * to create, or to update with the revision the page was loaded at (so a change made meanwhile is a 409, not
 * overwritten). Deleting asks first: the first press answers with a confirmation (only to someone who may delete),
 * the second, with `confirm=yes`, deletes. Success goes back to the list with a notice in the URL.
 */
export async function saveOrDelete(opts: {
  ctx: Ctx;
  form: FormData;
  id: string;
  service: PricingService;
  wrapper: string;
  listPath: string;
  /** The service request built from the posted fields; may throw an ApiError of its own. */
  request: (values: Record<string, string>) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** The name the notice shows ("Coupon SAVE5"). */
  label: (values: Record<string, string>) => string;
  /** Which input a service's field path shows at (default: fieldAt the posted names). */
  fieldOf?: (path: string, values: Record<string, string>) => { name: string };
  /** Places what the service reports without a field (conflictAt). */
  remap?: (problem: Problem) => void;
}) {
  const { ctx, form, id, service, wrapper, listPath } = opts;
  const values = postedValues(form);
  const intent = values.intent ?? "save";
  try {
    if (intent === "delete") {
      if (id === "new") throw new ApiError(400, "NOTHING_TO_DELETE", "This has not been created yet");
      if (values.confirm !== "yes") {
        requirePermission(ctx, "settings.manage");
        return data<EditResult>({ problem: null, values: null, confirmDelete: true });
      }
      await service.remove(ctx, id);
      return redirect(`${listPath}?deleted=${encodeURIComponent(opts.label(values).slice(0, 120))}`);
    }
    if (intent !== "save") throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    const request = await opts.request(values);
    if (id === "new") await service.create(ctx, { [wrapper]: request });
    else {
      const revision = text(values, "revision");
      await service.update(ctx, id, { [wrapper]: { ...request, ...(revision ? { revision } : {}) } });
    }
    return redirect(`${listPath}?saved=${encodeURIComponent(opts.label(values).slice(0, 120))}`);
  } catch (err) {
    const fieldOf = opts.fieldOf ?? ((path: string, v: Record<string, string>) => fieldAt(v)(path));
    const problem = problemOf(err, { ...CONSOLE, fieldOf: (path) => fieldOf(path, values) });
    opts.remap?.(problem);
    return data<EditResult>({ problem, values: intent === "save" ? values : null }, { status: problem.status ?? 400 });
  }
}

/** A list page's 1-based page number from the URL. */
export function pageOf(url: URL): number {
  return Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
}

/** The saved / deleted notice a list page shows after an edit page sent it back. */
export function noticeOf(url: URL): string | null {
  const saved = url.searchParams.get("saved");
  const deleted = url.searchParams.get("deleted");
  if (saved) return `Saved ${saved.slice(0, 120)}.`;
  if (deleted) return `Deleted ${deleted.slice(0, 120)}.`;
  return null;
}

/**
 * A conflict the service reports without a field (a duplicate code: 409) shown at the field it is about, in the
 * service's own words.
 */
export function conflictAt(code: string, path: string) {
  return (problem: Problem) => {
    if (problem.code === code && !problem.fields[path]) problem.fields[path] = problem.message.replace(/^Nothing was saved: /, "");
  };
}

/** One page of a pricing resource, through the query the API answers (one D1 round trip: rows and count in a batch). */
export async function queryPage<T>(
  service: { query(ctx: Ctx, body: unknown): Promise<Record<string, unknown>> },
  ctx: Ctx,
  plural: string,
  page: number,
  size: number,
): Promise<{ items: T[]; total: number; page: number; pages: number }> {
  const result = await service.query(ctx, { query: { paging: { limit: size, offset: (page - 1) * size } } });
  const total = (result.pagingMetadata as { total: number }).total;
  return { items: result[plural] as T[], total, page, pages: Math.max(1, Math.ceil(total / size)) };
}

/** An edit page's action: save or delete (saveOrDelete) the item of the route's `id`, for signed-in staff. */
export function pricingAction(opts: Omit<Parameters<typeof saveOrDelete>[0], "ctx" | "form" | "id">) {
  return staffOnly(async ({ context, request, params }: { context: AppLoadContext; request: Request; params: { id?: string } }) =>
    saveOrDelete({ ...opts, ctx: context.services, form: await request.formData(), id: params.id ?? "new" }),
  );
}

/** A pricing list page's data: its page of items (25 a page), the store currency and the notice after an edit. */
export async function listPage<T>(service: Parameters<typeof queryPage>[0], ctx: Ctx, url: URL, plural: string) {
  return { ...(await queryPage<T>(service, ctx, plural, pageOf(url), 25)), currency: ctx.currency, notice: noticeOf(url) };
}

/** The item an edit page shows: none for "new", else the service's, under `wrapper` (a refusal such as 404 is thrown). */
export async function storedItem<T>(
  service: { get(ctx: Ctx, id: string): Promise<Record<string, unknown>> },
  ctx: Ctx,
  id: string,
  wrapper: string,
): Promise<T | null> {
  return id === "new" ? null : ((await orRefuse(service.get(ctx, id)))[wrapper] as T);
}
