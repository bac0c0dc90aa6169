import { data, useActionData, useLoaderData, useNavigation } from "react-router";
import {
  blockStaff,
  inviteStaff,
  inviteStaffRequest,
  listStaff,
  resendActivation,
  unblockStaff,
  updateStaffPermissions,
  updateStaffRequest,
} from "#worker/identity";
import { parseWith } from "#worker/platform/validation";
import { InviteForm, StaffTable } from "#web/components/console/people";
import { byIntent } from "#web/components/console/problem.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { Notice, PageHead } from "#web/components/ui/page";
import { requireStaff, staffOnly } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { Route } from "./+types/staff";

export const meta = consoleMeta("Staff and roles — Settings — Console");

/** The owner's page: who works in the store and what each person may change. */
export async function loader({ context, request }: Route.LoaderArgs) {
  const user = requireStaff(context, request);
  if (user.role !== "OWNER") throw data("Only the store owner manages staff.", { status: 403 });
  return { staff: await listStaff(context.services) };
}

/**
 * Invite, change permissions, resend the activation link, remove (block) and let back in (unblock): each through the
 * staff service (owner only). A removed staff member loses the console at their next request.
 */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  const permissions = form.getAll("permissions").map(String);
  return byIntent(form, {
    invite: async (v) => {
      const input = parseWith(inviteStaffRequest, {
        email: v.email ?? "",
        ...(v.firstName ? { firstName: v.firstName } : {}),
        ...(v.lastName ? { lastName: v.lastName } : {}),
        permissions,
      });
      const member = await inviteStaff(ctx, input);
      return { ok: `Invited ${member.email}: they get an email with a link to set their password.` };
    },
    permissions: async (v) => {
      const member = await updateStaffPermissions(ctx, v.id ?? "", parseWith(updateStaffRequest, { permissions }));
      return { ok: `Saved what ${member.email} may do.` };
    },
    resend: async (v) => ({ ok: `Sent a new activation link to ${(await resendActivation(ctx, v.id ?? "")).email}.` }),
    block: async (v) => ({ ok: `${(await blockStaff(ctx, v.id ?? "")).email} can no longer sign in.` }),
    unblock: async (v) => {
      const member = await unblockStaff(ctx, v.id ?? "");
      const how = member.status === "ACTIVE" ? "they can sign in again" : "send them a new invitation to set their password";
      return { ok: `${member.email} is back: ${how}.` };
    },
  });
});

type ActionResult = { intent: string; ok: string | null; problem: Problem | null; values?: Record<string, string> };

export default function StaffPage() {
  const { staff } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>() as ActionResult | undefined;
  const busy = useNavigation().state === "submitting";
  const invite = result?.intent === "invite" ? result : null;
  return (
    <>
      <PageHead title="Staff and roles">
        <SettingsNav />
      </PageHead>
      <Notice text={result?.ok} />
      {result?.intent !== "invite" && <ErrorSummary problem={result?.problem} />}
      <StaffTable staff={staff} busy={busy} />
      <h2>Invite a staff member</h2>
      <InviteForm key={invite?.ok ?? "invite"} problem={invite?.problem} values={result?.values} busy={busy} />
    </>
  );
}
