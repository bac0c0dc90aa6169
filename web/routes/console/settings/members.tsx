import { approveMember, blockMember, listMembers, rejectMember, unblockMember } from "#worker/identity";
import { Pager } from "#web/components/console/pager";
import { MembersTable } from "#web/components/console/people";
import { byIntent } from "#web/components/console/problem.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, Field, Select } from "#web/components/ui/form";
import { Notice, PageHead, useCan } from "#web/components/ui/page";
import { staffOnly } from "#web/console.server";
import { useNavigation } from "react-router";
import "#web/styles/console-settings.css";
import type { Route } from "./+types/members";

export const meta = consoleMeta("Members — Settings — Console");

const PAGE_SIZE = 25;
const STATUSES = ["PENDING", "ACTIVE", "BLOCKED"] as const;
type Status = (typeof STATUSES)[number];
const STATUS_LABELS: Record<Status, string> = { PENDING: "Waiting", ACTIVE: "Active", BLOCKED: "Blocked" };

/**
 * The shop's members, newest first: searched (email or name) and filtered by status in the URL, one page at a time
 * (the page and its count in one D1 batch, besides the session).
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
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
});

/** Approve, reject, block, unblock: through the members service (settings.manage); a refusal changes nothing. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  const id = String(form.get("id") ?? "").slice(0, 100);
  const change = (run: typeof approveMember, said: (email: string, active: boolean) => string) => async () => {
    const { identity } = await run(ctx, id);
    return { ok: said(identity.email.address, identity.status.name === "ACTIVE") };
  };
  return byIntent(form, {
    approve: change(approveMember, (email, active) =>
      active ? `Approved ${email}: they can sign in now.` : `Approved ${email}; they still have to confirm their email.`,
    ),
    reject: change(rejectMember, (email) => `Rejected ${email}: they cannot sign in.`),
    block: change(blockMember, (email) => `Blocked ${email}: they are signed out and cannot sign in.`),
    unblock: change(unblockMember, (email) => `Unblocked ${email}.`),
  });
});

export default function Members({ loaderData, actionData }: Route.ComponentProps) {
  const { members, q, status, page, pages, total } = loaderData;
  const canManage = useCan("settings.manage");
  const busy = useNavigation().state === "submitting";
  return (
    <>
      <PageHead title="Members">
        <SettingsNav />
      </PageHead>
      <Notice text={actionData?.ok} />
      <ErrorSummary problem={actionData?.problem} />
      <form method="get" className="settings-filters" role="search" aria-label="Find members">
        <Field id="members-q" type="search" name="q" label="Email or name" defaultValue={q} maxLength={100} />
        <Select
          id="members-status"
          name="status"
          label="Status"
          defaultValue={status}
          placeholder="Any"
          options={STATUSES.map((s) => [s, STATUS_LABELS[s]] as const)}
        />
        <button type="submit" className="console-button">
          Show
        </button>
      </form>
      <p className="console-muted" aria-live="polite">
        {total === 1 ? "1 member" : `${total} members`}
        {q ? ` matching “${q}”` : ""}
        {status ? `, ${STATUS_LABELS[status as Status].toLowerCase()}` : ""}.
      </p>
      <MembersTable members={members} canManage={canManage} busy={busy} />
      <Pager page={page} pages={pages} label="Pages of members" previous="Previous" next="Next" showEnds />
    </>
  );
}
