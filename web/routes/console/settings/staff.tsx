import { data, Form, useActionData, useLoaderData, useNavigation } from "react-router";
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
import { ApiError } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import { AskFirstForm } from "#web/components/console/confirm";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { PermissionChecks, PermissionsForm } from "#web/components/console/permissions";
import { SettingsNav } from "#web/components/console/settings-nav";
import "#web/styles/console-settings.css";
import type { Route } from "./+types/staff";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Staff and roles — Settings — Console") }];
}

export const headers = () => consoleHeaders;

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
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = form.get("intent");
  const permissions = form.getAll("permissions").map(String);
  const id = String(form.get("id") ?? "");
  try {
    switch (intent) {
      case "invite": {
        const input = parseWith(inviteStaffRequest, {
          email: String(form.get("email") ?? ""),
          ...(form.get("firstName") ? { firstName: String(form.get("firstName")) } : {}),
          ...(form.get("lastName") ? { lastName: String(form.get("lastName")) } : {}),
          permissions,
        });
        const member = await inviteStaff(ctx, input);
        return { ok: `Invited ${member.email}: they get an email with a link to set their password.`, problem: null, intent };
      }
      case "permissions": {
        const member = await updateStaffPermissions(ctx, id, parseWith(updateStaffRequest, { permissions }));
        return { ok: `Saved what ${member.email} may do.`, problem: null, intent };
      }
      case "resend": {
        const member = await resendActivation(ctx, id);
        return { ok: `Sent a new activation link to ${member.email}.`, problem: null, intent };
      }
      case "block": {
        const member = await blockStaff(ctx, id);
        return { ok: `${member.email} can no longer sign in.`, problem: null, intent };
      }
      case "unblock": {
        const member = await unblockStaff(ctx, id);
        const how = member.status === "ACTIVE" ? "they can sign in again" : "send them a new invitation to set their password";
        return { ok: `${member.email} is back: ${how}.`, problem: null, intent };
      }
      default:
        throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    }
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    return data(
      { ok: null, problem, intent, values: Object.fromEntries([...form].filter(([k]) => k !== "permissions")) as Record<string, string> },
      { status: err instanceof ApiError ? err.status : 400 },
    );
  }
}

export default function StaffPage() {
  const { staff } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().state === "submitting";
  const invite = result?.intent === "invite" ? result : null;
  const values = result && "values" in result ? result.values : undefined;
  return (
    <>
      <h1>Staff and roles</h1>
      <SettingsNav />
      {result?.ok && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {result?.problem && result.intent !== "invite" && <ErrorSummary problem={result.problem} />}
      <table className="console-table">
        <caption className="visually-hidden">Owner and staff</caption>
        <thead>
          <tr>
            <th scope="col">Person</th>
            <th scope="col">Status</th>
            <th scope="col">May change</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {staff.map((s) => (
            <tr key={s.id}>
              <td>
                {[s.firstName, s.lastName].filter(Boolean).join(" ") || s.email}
                <div className="console-muted">{s.email}</div>
              </td>
              <td>{s.role === "OWNER" ? "Owner" : s.status === "PENDING" ? "Invited" : s.status === "BLOCKED" ? "Removed" : "Active"}</td>
              <td>
                {s.role === "OWNER" ? (
                  "Everything"
                ) : (
                  <PermissionsForm id={s.id} name={s.email} checked={s.permissions} busy={busy} disabled={s.status === "BLOCKED"} />
                )}
              </td>
              <td>
                {s.role === "STAFF" && s.status === "PENDING" && (
                  <Form method="post">
                    <input type="hidden" name="intent" value="resend" />
                    <input type="hidden" name="id" value={s.id} />
                    <button type="submit" className="console-button">
                      Resend invitation
                    </button>
                  </Form>
                )}
                {s.role === "STAFF" && s.status === "BLOCKED" && (
                  <Form method="post">
                    <input type="hidden" name="intent" value="unblock" />
                    <input type="hidden" name="id" value={s.id} />
                    <button type="submit" className="console-button">
                      Let back in<span className="visually-hidden"> {s.email}</span>
                    </button>
                  </Form>
                )}
                {s.role === "STAFF" && s.status !== "BLOCKED" && (
                  <AskFirstForm question={`Remove ${s.email}? They will be signed out and can no longer sign in.`}>
                    <input type="hidden" name="intent" value="block" />
                    <input type="hidden" name="id" value={s.id} />
                    <button type="submit" className="console-button danger">
                      Remove
                    </button>
                  </AskFirstForm>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      <h2>Invite a staff member</h2>
      <Form method="post" className="console-form" key={invite?.ok ?? "invite"}>
        <input type="hidden" name="intent" value="invite" />
        {invite?.problem && <ErrorSummary problem={invite.problem} />}
        <div className="console-field">
          <label htmlFor="invite-email">Email</label>
          <input
            id="invite-email"
            name="email"
            type="email"
            required
            maxLength={254}
            defaultValue={values?.email}
            aria-invalid={invite?.problem?.fields.email ? true : undefined}
            aria-describedby={invite?.problem?.fields.email ? "invite-email-error" : undefined}
          />
          <FieldError id="invite-email-error" message={invite?.problem?.fields.email} />
        </div>
        <div className="console-row">
          <div className="console-field">
            <label htmlFor="invite-first">First name</label>
            <input id="invite-first" name="firstName" maxLength={100} defaultValue={values?.firstName} />
          </div>
          <div className="console-field">
            <label htmlFor="invite-last">Last name</label>
            <input id="invite-last" name="lastName" maxLength={100} defaultValue={values?.lastName} />
          </div>
        </div>
        <fieldset>
          <legend>May change</legend>
          <PermissionChecks />
        </fieldset>
        <button type="submit" className="console-button primary" disabled={busy}>
          Send invitation
        </button>
      </Form>
    </>
  );
}
