import { Form, Link, useNavigation } from "react-router";
import { EMAIL_STATUSES, listEmails } from "#worker/email";
import { dateTimeText, pageOf, PastTheEnd, StatusBadge, statusWord, TEMPLATE_LABELS, templateLabel } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { readEmailFilters, EMAILS_PAGE_SIZE } from "#web/components/console/emails.server";
import { Select } from "#web/components/ui/form";
import { DateRange } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import type { Route } from "./+types/emails";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Emails — Automations — Console") }];
}

export const headers = () => consoleHeaders;

/** One page of the outbox for the filters in the URL: one batch (2 D1 round trips with the session). */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const page = pageOf(url);
  const { values, fields, filters } = readEmailFilters(url, page);
  const { emails, total } = await listEmails(context.services, filters);
  return { values, fields, emails, total, page, pages: Math.max(1, Math.ceil(total / EMAILS_PAGE_SIZE)) };
}

export default function ConsoleEmails({ loaderData }: Route.ComponentProps) {
  const { values, fields, emails, total, page, pages } = loaderData;
  const navigation = useNavigation();
  const filtered = !!(values.status || values.template || values.q || values.from || values.to);
  return (
    <>
      <h1>Emails</h1>
      <AutomationsNav />
      <p className="console-muted">
        Every email the shop sent or tried to send, newest first. Open one to see it as the shopper did, or to send a failed one again.
      </p>
      <Form method="get" className="console-toolbar" role="search" aria-label="Find emails">
        <div className="console-field automation-search">
          <label htmlFor="emails-q">Recipient</label>
          <input id="emails-q" type="search" name="q" defaultValue={values.q} placeholder="Email address or part of it" maxLength={254} />
        </div>
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
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={navigation.state === "loading"}>
            Show emails
          </button>
          {filtered && (
            <Link to="/console/automations/emails" className="console-button">
              Clear
            </Link>
          )}
        </div>
      </Form>
      {emails.length === 0 && total > 0 ? (
        <PastTheEnd total={total} what="emails" />
      ) : emails.length === 0 ? (
        <p className="console-muted" role="status">
          {filtered
            ? "No emails match these filters."
            : "No emails yet. Order confirmations, recovery emails and sign-in codes appear here as the shop sends them."}
        </p>
      ) : (
        <>
          <p className="console-muted" role="status">
            {total === 1 ? `1 email${filtered ? " matches" : ""}.` : `${total} emails${filtered ? " match" : ""}.`}
          </p>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">Emails{filtered ? " matching the filters" : ""}</caption>
              <thead>
                <tr>
                  <th scope="col">Recipient</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Email</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {emails.map((e) => (
                  <tr key={e.id}>
                    <th scope="row">
                      <Link to={`/console/automations/emails/${e.id}`} prefetch="intent">
                        {e.to}
                      </Link>
                    </th>
                    <td>{e.subject}</td>
                    <td>{templateLabel(e.template)}</td>
                    <td>
                      <StatusBadge status={e.status} />
                      {e.status === "FAILED" && e.error && <div className="console-muted automation-error">{e.error}</div>}
                    </td>
                    <td className="num">{e.attempts}</td>
                    <td>{dateTimeText(e.createdDate)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of emails" />
        </>
      )}
    </>
  );
}
