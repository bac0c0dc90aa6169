import { EMAIL_STATUSES, EMAIL_TEMPLATES, type EmailListFilters } from "#worker/email";
import { oneOf, readDateRange } from "./filter-bar.server";

/** The outbox list's filters as the URL holds them. Anything unknown is dropped; a bad date is reported at its field. */
export interface EmailFilterValues {
  status: string;
  template: string;
  q: string;
  from: string;
  to: string;
}

export const EMAILS_PAGE_SIZE = 50;

/** The outbox list's filters from the URL: what the form shows, the date errors, and the service's filters. */
export function readEmailFilters(url: URL, page: number): { values: EmailFilterValues; fields: Record<string, string>; filters: EmailListFilters } {
  const p = url.searchParams;
  const { from, to, fields } = readDateRange(p);
  const values: EmailFilterValues = {
    status: oneOf(p.get("status"), EMAIL_STATUSES),
    template: oneOf(p.get("template"), EMAIL_TEMPLATES),
    q: (p.get("q") ?? "").trim().slice(0, 254),
    from,
    // An end before the start is reported and not applied.
    to: fields.to ? "" : to,
  };
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
