/** Reading a console list's filters from its URL: anything unknown is dropped, a bad date reported at its field. */

/** The parameter's value when it is one of `list`, else "". */
export function oneOf<T extends string>(v: string | null, list: readonly T[]): T | "" {
  return list.includes(v as T) ? (v as T) : "";
}

/** The `from` and `to` dates (YYYY-MM-DD); one that is not a date is left out, an end before the start is reported at `to`. */
export function readDateRange(p: URLSearchParams): { from: string; to: string; fields: Record<string, string> } {
  const fields: Record<string, string> = {};
  const date = (name: "from" | "to") => {
    const v = (p.get(name) ?? "").trim();
    if (v && !/^\d{4}-\d{2}-\d{2}$/.test(v)) fields[name] = "Enter a date as YYYY-MM-DD.";
    else if (v && Number.isNaN(Date.parse(`${v}T00:00:00Z`))) fields[name] = "Not a calendar date.";
    else return v;
    return "";
  };
  const from = date("from");
  const to = date("to");
  if (from && to && from > to) fields.to = "The end date is before the start date.";
  return { from, to, fields };
}
