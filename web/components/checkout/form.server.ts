/**
 * Server helpers shared by the cart, checkout and account pages: form text, addresses and the list of countries for
 * address forms (refusals are worded by web/components/ui/form.server.ts).
 */

/** A form value as text ("" when absent). */
export function text(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === "string" ? v.trim() : "";
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
export function missingAddressFields(
  form: FormData,
  prefix: string,
  required = ["firstName", "lastName", "addressLine", "city", "postalCode", "country"],
): Record<string, string> {
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
