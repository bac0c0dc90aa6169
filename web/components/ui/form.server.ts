import { ApiError } from "#worker/platform/errors";
import { plainViolation } from "#worker/platform/validation";
import type { Problem } from "./form";

/**
 * Reading a posted form, and the one way a page turns a refused service call (an ApiError) into what its form shows:
 * a summary and each field violation under the form field it came from. Inputs are named by their API field path
 * (`fee.price`), so by default a violation's `field` is the input's name; pages whose inputs predate that pass `fieldOf`.
 */

/** How a page words a refusal. */
export interface ProblemWording {
  /** "console": "Nothing was saved" summaries in the merchant's terms; "shop" (the default): sentences for a shopper. */
  audience?: "shop" | "console";
  /** The form field (name, and the label that starts its message) of a service field path; null: the summary takes it. */
  fieldOf?: (path: string) => { name: string; label?: string } | null;
  /** Summaries by the service's error code. */
  messages?: Record<string, string>;
  /** One summary for any refusal. */
  summary?: string;
}

/** A refused service call as page data; anything that is not an ApiError is rethrown to the error boundary. */
export function problemOf(err: unknown, wording: ProblemWording = {}): Problem {
  if (!(err instanceof ApiError)) throw err;
  const fieldOf = wording.fieldOf ?? ((path: string): { name: string; label?: string } => ({ name: path }));
  const fields: Record<string, string> = {};
  const loose: string[] = [];
  for (const v of err.fieldViolations ?? []) {
    const f = fieldOf(v.field);
    const words = plainViolation(v.field, v.description);
    if (f) fields[f.name] ??= f.label ? `${f.label} ${words}.` : capitalise(words);
    else loose.push(words);
  }
  const message = wording.summary ?? wording.messages?.[err.code] ?? (wording.audience === "console" ? consoleMessage(err) : shopMessage(err, loose));
  return { message, fields, code: err.code, status: err.status };
}

function consoleMessage(err: ApiError): string {
  if (err.status === 403) return `You may not do this: ${err.description.replace(/\.?$/, ".")}`;
  if (err.fieldViolations?.length) return "Nothing was saved. Please correct the highlighted fields.";
  return `Nothing was saved: ${err.description.replace(/\.?$/, ".")}`;
}

function shopMessage(err: ApiError, loose: string[]): string {
  if (!err.fieldViolations) return pageMessage(err);
  return loose.length ? `Please check: ${loose.join("; ")}.` : "Please correct the highlighted fields.";
}

function capitalise(text: string): string {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

/** Words that belong to the API (its headers, tokens, clients and field paths), never to a page. */
const API_TERMS =
  /authori[sz]ation|access token|api key|\btokens?\b|\bheaders?\b|\bgrant\b|oauth|\bclient\b|\bendpoint|\bjson\b|\bfield\b|\w\[\d+\]|\b[a-z]+[A-Z]\w*\.\w/;

/**
 * A refused service call as a sentence for a page: the service's own words when they are written for people (a
 * coupon's reason, a sold-out item), a plain one for a lapsed session, a refusal or a limit, and never API terms.
 */
export function pageMessage(err: ApiError): string {
  if (err.status === 401) return "Your session has ended. Please try again.";
  if (err.status === 403) return "This can't be done from this account.";
  if (err.status === 429 && API_TERMS.test(err.description)) {
    const wait = Number((err.data as { retryAfterSeconds?: unknown }).retryAfterSeconds) || 60;
    return `Too many requests from your connection. Please try again in ${wait < 90 ? `${wait} seconds` : `${Math.ceil(wait / 60)} minutes`}.`;
  }
  if (API_TERMS.test(err.description)) return "Something went wrong. Please try again.";
  return sentence(err.description);
}

/** A description as a sentence: capitalised, ending with a full stop. */
export function sentence(s: string): string {
  const t = s.trim();
  return (t.charAt(0).toUpperCase() + t.slice(1)).replace(/([^.!?])$/, "$1.");
}

/**
 * Every text field of a form as typed, to read it and to refill it after a refusal: names starting with "_" and those
 * in `omit` (passwords, CVCs) left out, over-long names dropped and values cut at 2,000 characters.
 */
export function readForm(form: FormData, omit: readonly string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form) if (typeof v === "string" && k.length <= 100 && !omit.includes(k) && !k.startsWith("_")) out[k] = v.slice(0, 2000);
  return out;
}

/** The console's wording: fields keyed by their API path, "Nothing was saved" summaries. */
export const CONSOLE: ProblemWording = { audience: "console" };

/**
 * Which input a service's field path shows at: the longest of the posted input names and of `aliases` that the path
 * is or lies under (an alias wins a tie, so a hidden input's errors can show at a visible one); else the path itself.
 * Aliases name the input of paths no input is named by (`additionalFee.percentage` shows at `additionalFee.amount`).
 */
export function fieldAt(values: Record<string, string>, aliases: Record<string, string> = {}) {
  return (path: string): { name: string } => {
    const under = (stem: string) => path === stem || path.startsWith(`${stem}.`) || path.startsWith(`${stem}[`);
    let best: string | undefined;
    for (const stem of [...Object.keys(aliases), ...Object.keys(values)]) if (under(stem) && (!best || stem.length > best.length)) best = stem;
    return { name: best ? (aliases[best] ?? best) : path };
  };
}

/**
 * A service path with the index after `list` turned from the item's place in the request into its row in the form
 * (`rows[k]`: the form row of request item k; blank rows are left out of the request).
 */
export function atRow(path: string, list: string, rows: readonly number[]): string {
  const m = path.startsWith(`${list}[`) ? /^\[(\d+)\]/.exec(path.slice(list.length)) : null;
  const row = m ? rows[Number(m[1])] : undefined;
  return m && row !== undefined ? `${list}[${row}]${path.slice(list.length + m[0].length)}` : path;
}
