import { data, redirect, type AppLoadContext } from "react-router";
import {
  bulkAdjustProducts,
  bulkAdjustRequest,
  bulkDeleteProducts,
  bulkDeleteRequest,
  bulkUpdateProducts,
  bulkUpdateRequest,
  changeMembership,
  productNames,
  queryProducts,
} from "#worker/catalog";
import { requirePermission, type Ctx } from "#worker/platform/context";
import { ApiError, badField } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { MAX_RETURN_PATH } from "#web/auth.server";
import { readConsoleToken, requireStaff } from "#web/console.server";
import {
  BULK_ACTIONS,
  BULK_CHUNK,
  BULK_FAILURES_SHOWN,
  BULK_MAX,
  BULK_RESULT_TTL_MS,
  isBulkOp,
  type BulkActionData,
  type BulkOp,
  type BulkResult,
  type BulkValues,
} from "./bulk";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { productFilter, readProductFilters } from "./products.server";

/**
 * The products table's bulk action: the rows ticked on the page (or every product the URL's filter matches,
 * resolved here through the product query 100 at a time), one action, and the catalogue's bulk services called in
 * chunks of 100. The answer is a redirect back to the table carrying a signed summary (n updated, n failed and
 * why), or the form's problem with the selection kept and nothing written, or, for a delete, the confirmation step.
 */

function readValues(form: FormData): BulkValues {
  const text = (name: string, max: number) =>
    String(form.get(name) ?? "")
      .trim()
      .slice(0, max);
  const ids = (name: string) =>
    form
      .getAll(name)
      .map(String)
      .filter((id) => id.length > 0 && id.length <= 100);
  const allOnPage = form.get("page") === "all";
  return {
    op: text("op", 40),
    value: text("value", 100),
    collection: text("collection", 100),
    scope: form.get("scope") === "matching" ? "matching" : "selected",
    ids: [...new Set([...ids("ids"), ...(allOnPage ? ids("pageIds") : [])])].slice(0, BULK_MAX + 1),
    allOnPage,
    confirmed: form.get("confirm") === "yes",
  };
}

type Change =
  | { kind: "update"; set: Record<string, unknown> }
  | { kind: "adjust"; adjust: Record<string, unknown> }
  | { kind: "collection"; collectionId: string; mode: "add" | "remove" }
  | { kind: "delete" };

/** Checks the input an action needs and says what to change; a problem is keyed by the form's field name. */
function changeOf(values: BulkValues): { op: BulkOp; change: Change; what: string } {
  const { op, value } = values;
  if (!isBulkOp(op)) throw badField("op", "choose what to change");
  const spec = BULK_ACTIONS[op];
  const money = () => {
    if (!value) throw badField("value", "enter an amount such as 25 or 19.99");
    if (/^-/.test(value.trim()))
      throw badField("value", op === "price-set" ? "a price cannot be negative" : "enter the amount without a sign; choose raise or lower above");
    if (!/^\d{1,9}(\.\d{1,2})?$/.test(value)) throw badField("value", "enter an amount such as 25 or 19.99");
    return Number(value);
  };
  const percent = () => {
    if (!value) throw badField("value", "enter a percentage such as 10 or 12.5");
    if (/^-/.test(value)) throw badField("value", "enter the percentage without a sign; choose raise or lower above");
    if (!/^\d{1,5}(\.\d{1,2})?$/.test(value)) throw badField("value", "enter a percentage such as 10 or 12.5");
    const rate = Number(value);
    if (rate <= 0) throw badField("value", "enter a percentage above 0");
    if (op === "price-down-percent" && rate > 100) throw badField("value", "a price cannot be lowered by more than 100 %");
    if (rate > 10_000) throw badField("value", "enter a percentage of at most 10000");
    return rate;
  };
  const label = (max: number, what: string) => {
    if (!value) throw badField("value", `enter the ${what}`);
    if (value.length > max) throw badField("value", `a ${what} has at most ${max} characters`);
    return value;
  };
  switch (op) {
    case "price-set": {
      const price = money();
      return { op, change: { kind: "update", set: { price } }, what: `${spec.done} to ${value}` };
    }
    case "price-up":
    case "price-down": {
      const amount = money();
      if (amount === 0) throw badField("value", "enter an amount above 0");
      return {
        op,
        change: { kind: "adjust", adjust: { price: { amount: op === "price-up" ? amount : -amount } } },
        what: `${spec.done} by ${value}`,
      };
    }
    case "price-up-percent":
    case "price-down-percent": {
      const rate = percent();
      return {
        op,
        change: { kind: "adjust", adjust: { price: { percentage: { rate: op === "price-up-percent" ? rate : -rate, roundToInt: false } } } },
        what: `${spec.done} by ${value} %`,
      };
    }
    case "ribbon-set":
      return { op, change: { kind: "update", set: { ribbon: label(30, "ribbon") } }, what: `${spec.done} to “${value}”` };
    case "brand-set":
      return { op, change: { kind: "update", set: { brand: label(50, "brand") } }, what: `${spec.done} to “${value}”` };
    case "ribbon-clear":
      return { op, change: { kind: "update", set: { ribbon: "" } }, what: spec.done };
    case "brand-clear":
      return { op, change: { kind: "update", set: { brand: "" } }, what: spec.done };
    case "show":
    case "hide":
      return { op, change: { kind: "update", set: { visible: op === "show" } }, what: spec.done };
    case "collection-add":
    case "collection-remove":
      if (!values.collection) throw badField("collection", "choose a collection");
      return {
        op,
        change: { kind: "collection", collectionId: values.collection, mode: op === "collection-add" ? "add" : "remove" },
        what: spec.done,
      };
    case "delete":
      return { op, change: { kind: "delete" }, what: spec.done };
  }
}

/**
 * Every product the table's filter matches, in id order, through the same product query the table reads (hidden
 * products included), 100 a page: never more than BULK_MAX ids and their names held at once.
 */
async function matchingProducts(ctx: Ctx, url: URL): Promise<Map<string, string>> {
  const { filters } = readProductFilters(url);
  const found = new Map<string, string>();
  for (let offset = 0; ; offset += BULK_CHUNK) {
    const page = await queryProducts(ctx, {
      query: {
        filter: productFilter(filters),
        sort: [{ fieldName: "id", order: "ASC" }],
        paging: { limit: BULK_CHUNK, offset },
        ...(filters.q ? { search: { expression: filters.q } } : {}),
      },
      includeHiddenProducts: true,
    });
    if (offset === 0 && page.totalResults > BULK_MAX) {
      throw badField(
        "scope",
        `this filter matches ${page.totalResults.toLocaleString("en")} products; a bulk edit takes at most ${BULK_MAX.toLocaleString("en")} at a time, so narrow the filter`,
      );
    }
    for (const p of page.products) found.set(p.id, p.name);
    if (page.products.length < BULK_CHUNK || found.size >= BULK_MAX) return found;
  }
}

/** The products to change (id -> name), in the order they were chosen; ids that no longer exist are left out. */
async function targetsOf(ctx: Ctx, values: BulkValues, url: URL): Promise<{ names: Map<string, string>; gone: string[] }> {
  if (values.scope === "matching") {
    const names = await matchingProducts(ctx, url);
    if (!names.size) throw badField("scope", "no products match this filter");
    return { names, gone: [] };
  }
  if (!values.ids.length) throw badField("selection", "select at least one product, or choose all products matching the filter");
  if (values.ids.length > BULK_MAX) throw badField("selection", `select at most ${BULK_MAX.toLocaleString("en")} products`);
  const known = await productNames(ctx.db, values.ids);
  const names = new Map(values.ids.filter((id) => known.has(id)).map((id) => [id, known.get(id)!]));
  return { names, gone: values.ids.filter((id) => !known.has(id)) };
}

/** Why one product failed, in the merchant's words (the services' descriptions start with "Product <id>"). */
function why(id: string, error: { code: string; description: string } | undefined): string {
  if (!error || error.code === "PRODUCT_NOT_FOUND") return "it no longer exists";
  return error.description.replace(`Product ${id} `, "").replace(/^./, (c) => c.toLowerCase());
}

type ItemResults = { results: { itemMetadata: { id: string; success: boolean; error?: { code: string; description: string } } }[] };

/** Applies the change 100 products at a time; answers each product's success or failure reason. */
async function apply(ctx: Ctx, change: Change, ids: string[]): Promise<Map<string, string | null>> {
  const outcome = new Map<string, string | null>();
  for (let at = 0; at < ids.length; at += BULK_CHUNK) {
    const chunk = ids.slice(at, at + BULK_CHUNK);
    let res: ItemResults;
    switch (change.kind) {
      case "update":
        res = await bulkUpdateProducts(ctx, parseWith(bulkUpdateRequest, { ids: chunk, set: change.set }));
        break;
      case "adjust":
        res = await bulkAdjustProducts(ctx, parseWith(bulkAdjustRequest, { ids: chunk, adjust: change.adjust }));
        break;
      case "delete":
        res = await bulkDeleteProducts(ctx, parseWith(bulkDeleteRequest, { ids: chunk }));
        break;
      case "collection":
        try {
          await changeMembership(ctx, change.collectionId, chunk, change.mode);
          res = { results: chunk.map((id) => ({ itemMetadata: { id, success: true } })) };
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          // The collection is checked before anything is written: a missing one on the first chunk is the form's problem.
          if (at === 0 && (err.code === "COLLECTION_NOT_FOUND" || err.code === "BUILT_IN_COLLECTION")) {
            throw badField(
              "collection",
              err.code === "BUILT_IN_COLLECTION" ? "the All Products collection always holds every product" : "this collection no longer exists",
            );
          }
          const reason = err.code === "COLLECTION_NOT_FOUND" ? "the collection no longer exists" : err.description;
          res = { results: chunk.map((id) => ({ itemMetadata: { id, success: false, error: { code: err.code, description: reason } } })) };
        }
        break;
    }
    for (const r of res.results) outcome.set(r.itemMetadata.id, r.itemMetadata.success ? null : why(r.itemMetadata.id, r.itemMetadata.error));
  }
  return outcome;
}

/** The form action of /console/products (POST). */
export async function bulkAction(context: AppLoadContext, request: Request) {
  requireStaff(context, request);
  const ctx = context.services;
  const values = readValues(await request.formData());
  const url = new URL(request.url);
  url.searchParams.delete("done");
  try {
    // Refused before anything is read or confirmed; the services check it again on every write.
    requirePermission(ctx, "catalog.write");
    const { op, change, what } = changeOf(values);
    const { names, gone } = await targetsOf(ctx, values, url);
    const ids = [...names.keys()];
    // A delete goes ahead only from the confirmation step's own button (confirm=yes), which lists what goes.
    if (op === "delete" && !values.confirmed) {
      if (!ids.length) throw badField("selection", "the selected products no longer exist");
      const list = [...names.values()];
      return {
        problem: null,
        values,
        confirm: { count: ids.length, names: list.slice(0, 5), more: Math.max(0, list.length - 5), ids },
      } satisfies BulkActionData;
    }
    const outcome = ids.length ? await apply(ctx, change, ids) : new Map<string, string | null>();
    const failures = [
      ...gone.map((id) => ({ name: id, why: "it no longer exists" })),
      ...ids.filter((id) => outcome.get(id)).map((id) => ({ name: names.get(id)!, why: outcome.get(id)! })),
    ];
    const result: BulkResult = {
      what,
      verb: op === "delete" ? "deleted" : "updated",
      ok: ids.length - (failures.length - gone.length),
      failed: failures.length,
      failures: failures.slice(0, BULK_FAILURES_SHOWN).map((f) => ({ name: f.name.slice(0, 80), why: f.why.slice(0, 160) })),
      at: Date.now(),
    };
    const done = await sealBulkResult(request, result);
    url.searchParams.set("done", done);
    // Back to the list as it was filtered, unless that makes too long a redirect: then the list's first page.
    const back = `${url.pathname}?${url.searchParams}`;
    return redirect(back.length <= MAX_RETURN_PATH ? back : `${url.pathname}?${new URLSearchParams({ done })}`);
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    if (problem.status === 403) problem.message = "You may not edit products: ask the store owner for the catalogue permission.";
    return data({ problem, values, confirm: null } satisfies BulkActionData, { status: problem.status ?? 400 });
  }
}

// ---- The summary link: signed with the console session, so it survives a reload but cannot be forged or shared. ----

const encoder = new TextEncoder();

async function resultKey(request: Request): Promise<CryptoKey | null> {
  const token = readConsoleToken(request);
  if (!token) return null;
  return crypto.subtle.importKey("raw", encoder.encode(`bulk-result:${token}`), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

function base64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text) || text.length % 4 === 1) return null;
  const s = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(s, (c) => c.charCodeAt(0));
}

export async function sealBulkResult(request: Request, result: BulkResult): Promise<string> {
  const key = await resultKey(request);
  const body = base64url(encoder.encode(JSON.stringify(result)));
  if (!key) return body;
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(body)));
  return `${body}.${base64url(sig)}`;
}

/**
 * The summary in the table page's URL (`done`), if this console session signed it in the last BULK_RESULT_TTL_MS:
 * a reload shows it again; a link from someone else, an edited one or an old one shows nothing.
 */
export async function openBulkResult(request: Request): Promise<BulkResult | null> {
  const raw = new URL(request.url).searchParams.get("done");
  if (!raw || raw.length > 8000) return null;
  const [body, sig] = raw.split(".");
  const key = await resultKey(request);
  const sigBytes = sig ? fromBase64url(sig) : null;
  const bodyBytes = fromBase64url(body);
  if (!key || !sigBytes || !bodyBytes) return null;
  if (!(await crypto.subtle.verify("HMAC", key, sigBytes, encoder.encode(body)))) return null;
  try {
    const result = JSON.parse(new TextDecoder().decode(bodyBytes)) as BulkResult;
    const age = Date.now() - result.at;
    return age >= -60_000 && age <= BULK_RESULT_TTL_MS ? result : null;
  } catch {
    return null;
  }
}
