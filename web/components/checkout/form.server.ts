import { ApiError } from "../../../worker/platform/errors";
import type { FormProblem } from "./fields";

/**
 * Server helpers shared by the cart, checkout and account pages: form text, service errors as words a shopper reads
 * (tied to the form field that caused them), and the list of countries for address forms.
 */

/** A form value as text ("" when absent). */
export function text(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
}

/** Every field of a form as text, for echoing back what the shopper typed after an error (passwords and CVCs excluded). */
export function entered(form: FormData, omit: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of form) if (typeof v === "string" && !omit.includes(k) && !k.startsWith("_")) out[k] = v;
  return out;
}

/**
 * A service error as page data. `fieldOf` maps a service field path (e.g. `checkout.buyerInfo.email`) to the form
 * field it came from (`email`) and its label; paths it does not know go to the summary. Anything that is not an
 * ApiError is rethrown: the error boundary shows it.
 */
export function problemFrom(err: unknown, fieldOf: (path: string) => { name: string; label: string } | null, summary?: string): FormProblem {
  if (!(err instanceof ApiError)) throw err;
  const fields: Record<string, string> = {};
  const loose: string[] = [];
  for (const v of err.fieldViolations ?? []) {
    const f = fieldOf(v.field);
    if (f) fields[f.name] ??= `${f.label} ${v.description}.`;
    else loose.push(v.description);
  }
  const message = summary ?? (err.fieldViolations ? (loose.length ? `Please check: ${loose.join("; ")}.` : "Please correct the highlighted fields.") : pageMessage(err));
  return { message, fields, code: err.code };
}

/** Words that belong to the API (its headers, tokens, clients and field paths), never to a page. */
const API_TERMS = /authori[sz]ation|access token|api key|\btokens?\b|\bheaders?\b|\bgrant\b|oauth|\bclient\b|\bendpoint|\bjson\b|\bfield\b|\w\[\d+\]|\b[a-z]+[A-Z]\w*\.\w/;

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

// ISO 3166-1 alpha-2 codes; names come from Intl.DisplayNames on the server (so the browser never re-computes them).
const COUNTRY_CODES =
  "AD AE AF AG AI AL AM AO AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BW BY BZ CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GT GU GW GY HK HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW SA SB SC SD SE SG SH SI SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW".split(
    " ",
  );

let countryCache: { code: string; name: string }[] | null = null;

/** Countries for an address form, by name. */
export function countries(): { code: string; name: string }[] {
  if (!countryCache) {
    const names = new Intl.DisplayNames(["en"], { type: "region" });
    countryCache = COUNTRY_CODES.map((code) => ({ code, name: names.of(code) ?? code })).sort((a, b) => a.name.localeCompare(b.name, "en"));
  }
  return countryCache;
}

/** A country's name ("US" → "United States"). */
export function countryName(code: string | null | undefined): string {
  if (!code) return "";
  return countries().find((c) => c.code === code.toUpperCase())?.name ?? code;
}

/** Page headers for per-shopper pages: never cached by anyone. */
export const privateHeaders = { "Cache-Control": "private, no-store" };

const ADDRESS_LABELS: Record<string, string> = {
  firstName: "First name",
  lastName: "Last name",
  phone: "Phone",
  addressLine: "Address",
  addressLine2: "Apartment",
  city: "City",
  postalCode: "Postal code",
  country: "Country",
  subdivision: "State or region",
};

/** The label of an address form field (`ship.city` → City). */
export function addressLabel(field: string): string {
  return ADDRESS_LABELS[field] ?? field;
}

/** An address form's values: the address and the contact details, each with only what was filled in. */
export function addressFrom(form: FormData, prefix: string) {
  const v = (f: string) => text(form, `${prefix}.${f}`);
  const pick = (keys: string[]) => Object.fromEntries(keys.map((k) => [k, v(k)]).filter(([, val]) => val !== ""));
  const address = pick(["addressLine", "addressLine2", "city", "postalCode", "country", "subdivision"]);
  const contactDetails = pick(["firstName", "lastName", "phone"]);
  return { address, contactDetails };
}

/** Required address fields left empty, as field messages (`ship.city` → "City is required."). */
export function missingAddressFields(form: FormData, prefix: string, required = ["firstName", "lastName", "addressLine", "city", "postalCode", "country"]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of required) if (!text(form, `${prefix}.${f}`)) out[`${prefix}.${f}`] = `${addressLabel(f)} is required.`;
  return out;
}

/** Maps a service path ending in `address.<field>` or `contactDetails.<field>` to the address form field with this prefix. */
export function addressFieldOf(path: string, prefix: string): { name: string; label: string } | null {
  const m = path.match(/(?:address|contactDetails)\.([A-Za-z0-9]+)/);
  if (!m || !(m[1] in ADDRESS_LABELS)) return null;
  return { name: `${prefix}.${m[1]}`, label: addressLabel(m[1]) };
}
