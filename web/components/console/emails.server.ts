import { EMAIL_STATUSES, EMAIL_TEMPLATES, type EmailListFilters } from "#worker/email";

/** The outbox list's filters as the URL holds them. Anything unknown is dropped; a bad date is reported at its field. */
export interface EmailFilterValues {
  status: string;
  template: string;
  q: string;
  from: string;
  to: string;
}

export const EMAILS_PAGE_SIZE = 50;

export function readEmailFilters(url: URL, page: number): { values: EmailFilterValues; fields: Record<string, string>; filters: EmailListFilters } {
  const p = url.searchParams;
  const fields: Record<string, string> = {};
  const date = (name: "from" | "to") => {
    const v = (p.get(name) ?? "").trim();
    if (v && !/^\d{4}-\d{2}-\d{2}$/.test(v)) fields[name] = "Enter a date as YYYY-MM-DD.";
    else if (v && Number.isNaN(Date.parse(`${v}T00:00:00Z`))) fields[name] = "Not a calendar date.";
    else return v;
    return "";
  };
  const oneOf = <T extends string>(v: string | null, list: readonly T[]): T | "" => (list.includes(v as T) ? (v as T) : "");
  const values: EmailFilterValues = {
    status: oneOf(p.get("status"), EMAIL_STATUSES),
    template: oneOf(p.get("template"), EMAIL_TEMPLATES),
    q: (p.get("q") ?? "").trim().slice(0, 254),
    from: date("from"),
    to: date("to"),
  };
  if (values.from && values.to && values.from > values.to) {
    fields.to = "The end date is before the start date.";
    values.to = "";
  }
  const filters: EmailListFilters = {
    status: (values.status || undefined) as EmailListFilters["status"],
    template: (values.template || undefined) as EmailListFilters["template"],
    recipient: values.q || undefined,
    from: values.from || undefined,
    to: values.to || undefined,
    limit: EMAILS_PAGE_SIZE,
    offset: (page - 1) * EMAILS_PAGE_SIZE,
  };
  return { values, fields, filters };
}
