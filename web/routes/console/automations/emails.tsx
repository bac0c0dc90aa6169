import { EMAIL_STATUSES, listEmails } from "#worker/email";
import {
  AutomationHead,
  dateTimeText,
  ListBody,
  pageOf,
  pagesOf,
  StatusBadge,
  statusWord,
  TEMPLATE_LABELS,
  templateLabel,
} from "#web/components/console/automation-lists";
import { EMAILS_PAGE_SIZE, readEmailFilters } from "#web/components/console/emails.server";
import { DateRange, FilterBar } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { consoleMeta } from "#web/components/console/title";
import { Field, Select } from "#web/components/ui/form";
import { DataTable, ListStatus, linkColumn } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/emails";

export const meta = consoleMeta("Emails — Automations — Console");

/** One page of the outbox for the filters in the URL: one batch (2 D1 round trips with the session). */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const url = new URL(request.url);
  const page = pageOf(url);
  const { values, fields, filters } = readEmailFilters(url, page);
  const { emails, total } = await listEmails(context.services, filters);
  return { values, fields, emails, total, page, pages: pagesOf(total, EMAILS_PAGE_SIZE) };
});

type Email = Route.ComponentProps["loaderData"]["emails"][number];

export default function ConsoleEmails({ loaderData }: Route.ComponentProps) {
  const { values, fields, emails, total, page, pages } = loaderData;
  const filtered = !!(values.status || values.template || values.q || values.from || values.to);
  return (
    <>
      <AutomationHead
        title="Emails"
        intro="Every email the shop sent or tried to send, newest first. Open one to see it as the shopper did, or to send a failed one again."
      />
      <FilterBar label="Find emails" search submit="Show emails" clearTo={filtered ? "/console/automations/emails" : null}>
        <Field
          id="emails-q"
          name="q"
          type="search"
          label="Recipient"
          className="automation-search"
          defaultValue={values.q}
          placeholder="Email address or part of it"
          maxLength={254}
        />
        <Select
          id="emails-status"
          name="status"
          label="Status"
          defaultValue={values.status}
          placeholder="Any"
          options={EMAIL_STATUSES.map((s) => [s, statusWord(s)] as const)}
        />
        <Select
          id="emails-template"
          name="template"
          label="Email"
          defaultValue={values.template}
          placeholder="Any"
          options={Object.entries(TEMPLATE_LABELS)}
        />
        <DateRange prefix="emails" label="Created from" from={values.from} to={values.to} errors={fields} />
      </FilterBar>
      <ListBody
        shown={emails.length}
        total={total}
        what="emails"
        empty={
          filtered
            ? "No emails match these filters."
            : "No emails yet. Order confirmations, recovery emails and sign-in codes appear here as the shop sends them."
        }
      >
        <ListStatus>{total === 1 ? `1 email${filtered ? " matches" : ""}.` : `${total} emails${filtered ? " match" : ""}.`}</ListStatus>
        <DataTable<Email>
          caption={`Emails${filtered ? " matching the filters" : ""}`}
          rows={emails}
          rowKey={(e) => e.id}
          columns={[
            linkColumn(
              "Recipient",
              (e) => `/console/automations/emails/${e.id}`,
              (e) => e.to,
              { prefetch: "intent" },
            ),
            { header: "Subject", cell: (e) => e.subject },
            { header: "Email", cell: (e) => templateLabel(e.template) },
            {
              header: "Status",
              cell: (e) => (
                <>
                  <StatusBadge status={e.status} />
                  {e.status === "FAILED" && e.error && <div className="console-muted automation-error">{e.error}</div>}
                </>
              ),
            },
            { header: "Attempts", num: true, cell: (e) => e.attempts },
            { header: "Created", cell: (e) => dateTimeText(e.createdDate) },
          ]}
        />
        <Pager page={page} pages={pages} label="Pages of emails" />
      </ListBody>
    </>
  );
}
