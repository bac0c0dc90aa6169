import { data, Form, useNavigation, useRouteLoaderData } from "react-router";
import { approveMember, blockMember, listMembers, rejectMember, unblockMember } from "#worker/identity";
import { ApiError } from "#worker/platform/errors";
import { Badge } from "#web/components/console/badge";
import { ErrorSummary } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/members";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Members — Settings — Console") }];
}

export const headers = () => consoleHeaders;

const PAGE_SIZE = 25;
const STATUSES = ["PENDING", "ACTIVE", "BLOCKED"] as const;
type Status = (typeof STATUSES)[number];
const STATUS_LABELS: Record<Status, string> = { PENDING: "Waiting", ACTIVE: "Active", BLOCKED: "Blocked" };

/**
 * The shop's members, newest first: searched (email or name) and filtered by status in the URL, one page at a time
 * (the page and its count in one D1 batch, besides the session).
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  const url = new URL(request.url);
  const q = (url.searchParams.get("q") ?? "").trim().slice(0, 100);
  const statusParam = url.searchParams.get("status") ?? "";
  const status = (STATUSES as readonly string[]).includes(statusParam) ? (statusParam as Status) : undefined;
  const page = Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
  const { members, metadata } = await listMembers(context.services, { q: q || undefined, status, limit: PAGE_SIZE, offset: (page - 1) * PAGE_SIZE });
  return {
    q,
    status: status ?? "",
    page,
    pages: Math.max(1, Math.ceil(metadata.total / PAGE_SIZE)),
    total: metadata.total,
    members: members.map((m) => ({
      id: m.id,
      email: m.email.address,
      name: [m.identityProfile.firstName, m.identityProfile.lastName].filter(Boolean).join(" "),
      status: m.status.name,
      waitingForApproval: m.status.reasons.includes("PENDING_ADMIN_APPROVAL_REQUIRED"),
      waitingForEmail: m.status.reasons.includes("PENDING_EMAIL_VERIFICATION_REQUIRED"),
      createdDate: m.createdDate,
    })),
  };
}

/** Approve, reject, block, unblock: through the members service (settings.manage); a refusal changes nothing. */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("id") ?? "").slice(0, 100);
  try {
    const change = { approve: approveMember, reject: rejectMember, block: blockMember, unblock: unblockMember }[intent];
    if (!change) throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    const { identity } = await change(ctx, id);
    const email = identity.email.address;
    const said: Record<string, string> = {
      approve:
        identity.status.name === "ACTIVE" ? `Approved ${email}: they can sign in now.` : `Approved ${email}; they still have to confirm their email.`,
      reject: `Rejected ${email}: they cannot sign in.`,
      block: `Blocked ${email}: they are signed out and cannot sign in.`,
      unblock: `Unblocked ${email}.`,
    };
    return { ok: said[intent], problem: null };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem }, { status: problem.status ?? 400 });
  }
}

const day = (iso: string) => iso.slice(0, 10);

export default function Members({ loaderData, actionData }: Route.ComponentProps) {
  const { members, q, status, page, pages, total } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canManage = !!user?.permissions.includes("settings.manage");
  const busy = useNavigation().state === "submitting";
  const button = (id: string, intent: string, label: string, who: string, danger = false) => (
    <Form method="post" key={intent}>
      <input type="hidden" name="intent" value={intent} />
      <input type="hidden" name="id" value={id} />
      <button type="submit" className={danger ? "console-button danger" : "console-button"} disabled={busy} aria-label={`${label} ${who}`}>
        {label}
      </button>
    </Form>
  );
  return (
    <>
      <h1>Members</h1>
      <SettingsNav />
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      <ErrorSummary problem={actionData?.problem} />
      <form method="get" className="settings-filters" role="search" aria-label="Find members">
        <div className="console-field">
          <label htmlFor="members-q">Email or name</label>
          <input id="members-q" type="search" name="q" defaultValue={q} maxLength={100} />
        </div>
        <div className="console-field">
          <label htmlFor="members-status">Status</label>
          <select id="members-status" name="status" defaultValue={status}>
            <option value="">Any</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {STATUS_LABELS[s]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="console-button">
          Show
        </button>
      </form>
      <p className="console-muted" aria-live="polite">
        {total === 1 ? "1 member" : `${total} members`}
        {q ? ` matching “${q}”` : ""}
        {status ? `, ${STATUS_LABELS[status as Status].toLowerCase()}` : ""}.
      </p>
      {members.length > 0 && (
        <table className="console-table">
          <caption className="visually-hidden">Members, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">Status</th>
              <th scope="col">Joined</th>
              {canManage && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {members.map((m) => (
              <tr key={m.id}>
                <td>
                  {m.name || m.email}
                  {m.name && <div className="console-muted">{m.email}</div>}
                </td>
                <td>
                  {m.status === "ACTIVE" && <Badge tone="good">Active</Badge>}
                  {m.status === "BLOCKED" && <Badge tone="bad">Blocked</Badge>}
                  {m.status === "PENDING" && <Badge tone="warn">{m.waitingForApproval ? "Waiting for approval" : "Confirming email"}</Badge>}
                  {m.status === "PENDING" && m.waitingForApproval && m.waitingForEmail && (
                    <div className="console-muted">and confirming their email</div>
                  )}
                </td>
                <td>{day(m.createdDate)}</td>
                {canManage && (
                  <td>
                    <div className="console-actions">
                      {m.status === "PENDING" && m.waitingForApproval && button(m.id, "approve", "Approve", m.email)}
                      {m.status === "PENDING" && m.waitingForApproval && button(m.id, "reject", "Reject", m.email, true)}
                      {m.status !== "BLOCKED" && !(m.status === "PENDING" && m.waitingForApproval) && button(m.id, "block", "Block", m.email, true)}
                      {m.status === "BLOCKED" && button(m.id, "unblock", "Unblock", m.email)}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <Pager page={page} pages={pages} label="Pages of members" previous="Previous" next="Next" showEnds />
    </>
  );
}
