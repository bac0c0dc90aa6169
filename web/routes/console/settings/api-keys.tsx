import { data, Form, useNavigation, useRouteLoaderData } from "react-router";
import { createApiKey, createApiKeyRequest, listApiKeys, revokeApiKey, updateApiKeyPermissions, updateApiKeyRequest } from "#worker/identity";
import { PERMISSION_LABELS, requireOwner } from "#worker/platform/context";
import { ApiError } from "#worker/platform/errors";
import { parseWith } from "#worker/platform/validation";
import { Badge } from "#web/components/console/badge";
import { AskFirstForm } from "#web/components/console/confirm";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { PermissionChecks, PermissionsForm } from "#web/components/console/permissions";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/api-keys";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "API keys — Settings — Console") }];
}

export const headers = () => consoleHeaders;

/** Every API key made (never the keys themselves): one D1 read besides the session. */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
  return { apiKeys: await listApiKeys(context.services) };
}

type ActionResult = {
  intent: string;
  ok: string | null;
  problem: Problem | null;
  /** The new key: in this response only (shown once), never in a loader and never stored in plain. */
  created?: { name: string; key: string } | null;
  values?: Record<string, string>;
  confirmRevoke?: { id: string; name: string };
};

/**
 * Create (the key is answered here once), change a STAFF key's permissions, and revoke, through the staff service
 * (owner only). Revoking asks first:
 * without JavaScript the first press answers with the question, and only a second press with `confirm=yes` revokes.
 */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const field = (name: string) => String(form.get(name) ?? "").slice(0, 200);
  const permissions = form.getAll("permissions").map(String);
  try {
    switch (intent) {
      case "create": {
        const input = parseWith(createApiKeyRequest, { name: field("name"), role: field("role"), permissions });
        const { apiKey, key } = await createApiKey(ctx, input);
        return { intent, ok: `Created the key “${apiKey.name}”.`, problem: null, created: { name: apiKey.name, key } } satisfies ActionResult;
      }
      case "permissions": {
        const apiKey = await updateApiKeyPermissions(ctx, field("id"), parseWith(updateApiKeyRequest, { permissions }));
        return { intent, ok: `Saved what “${apiKey.name}” may do.`, problem: null } satisfies ActionResult;
      }
      case "revoke": {
        if (form.get("confirm") !== "yes") {
          // Only worth asking someone who may revoke.
          requireOwner(ctx);
          return { intent, ok: null, problem: null, confirmRevoke: { id: field("id"), name: field("name") } } satisfies ActionResult;
        }
        const apiKey = await revokeApiKey(ctx, field("id"));
        return { intent, ok: `Revoked “${apiKey.name}”: it is refused from now on.`, problem: null } satisfies ActionResult;
      }
      default:
        throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    }
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    const result: ActionResult = { intent, ok: null, problem, values: { name: field("name"), role: field("role") } };
    return data(result, { status: problem.status ?? 400 });
  }
}

const date = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

export default function ApiKeys({ loaderData, actionData }: Route.ComponentProps) {
  const { apiKeys } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const isOwner = user?.role === "OWNER";
  const busy = useNavigation().state === "submitting";
  const result = actionData as ActionResult | undefined;
  const createProblem = result?.intent === "create" ? result.problem : null;
  return (
    <>
      <h1>API keys</h1>
      <SettingsNav />
      <p className="console-muted">
        A key lets another program call the shop&rsquo;s API as the store (header <code>Authorization: sk_…</code>). An Owner key may do everything; a
        Staff key may read merchant data and change only what its permissions name, and never manage staff or keys.{" "}
        {isOwner ? "" : "Only the store owner creates, changes and revokes keys."}
      </p>
      {result?.created && (
        <SecretOnce
          label={`Copy the key “${result.created.name}” now.`}
          note="It is shown only this once: the shop keeps only a fingerprint of it."
          secret={result.created.key}
          testId="new-api-key"
        />
      )}
      {result?.ok && !result.created && (
        <p className="console-notice" role="status">
          {result.ok}
        </p>
      )}
      {result?.problem && result.intent !== "create" && <ErrorSummary problem={result.problem} />}
      {result?.confirmRevoke && (
        <Form method="post" className="console-error" aria-label="Confirm revoking">
          <p>Revoke “{result.confirmRevoke.name}”? Programs using it are refused from their next request. This cannot be undone.</p>
          <input type="hidden" name="intent" value="revoke" />
          <input type="hidden" name="id" value={result.confirmRevoke.id} />
          <input type="hidden" name="name" value={result.confirmRevoke.name} />
          <input type="hidden" name="confirm" value="yes" />
          <div className="console-actions">
            <button type="submit" className="console-button danger">
              Yes, revoke it
            </button>
            <a href="/console/settings/api-keys" className="console-button">
              Keep it
            </a>
          </div>
        </Form>
      )}

      {apiKeys.length === 0 ? (
        <p>No API keys yet.</p>
      ) : (
        <table className="console-table">
          <caption className="visually-hidden">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Starts with</th>
              <th scope="col">Role</th>
              <th scope="col">May change</th>
              <th scope="col">Created</th>
              <th scope="col">Status</th>
              {isOwner && (
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {apiKeys.map((k) => (
              <tr key={k.id}>
                <td>{k.name}</td>
                <td>{k.prefix ? <code>{k.prefix}…</code> : <span className="console-muted">not recorded</span>}</td>
                <td>{k.role === "OWNER" ? "Owner" : "Staff"}</td>
                <td>
                  {k.role === "OWNER" ? (
                    "Everything"
                  ) : isOwner && !k.revokedDate ? (
                    <PermissionsForm id={k.id} name={k.name} checked={k.permissions} busy={busy} />
                  ) : k.permissions.length ? (
                    <ul className="console-plain-list">
                      {k.permissions.map((p) => (
                        <li key={p}>{PERMISSION_LABELS[p]}</li>
                      ))}
                    </ul>
                  ) : (
                    <span className="console-muted">Nothing (reads only)</span>
                  )}
                </td>
                <td>{date(k.createdDate)}</td>
                <td>{k.revokedDate ? <Badge tone="bad">Revoked {date(k.revokedDate)}</Badge> : <Badge tone="good">Active</Badge>}</td>
                {isOwner && (
                  <td>
                    {!k.revokedDate && (
                      <AskFirstForm question={`Revoke “${k.name}”? Programs using it are refused from their next request.`}>
                        <input type="hidden" name="intent" value="revoke" />
                        <input type="hidden" name="id" value={k.id} />
                        <input type="hidden" name="name" value={k.name} />
                        <input type="hidden" name="confirm" value="" />
                        <button type="submit" className="console-button danger" aria-label={`Revoke ${k.name}`}>
                          Revoke
                        </button>
                      </AskFirstForm>
                    )}
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      )}

      {isOwner && (
        <>
          <h2>Create a key</h2>
          <Form method="post" className="console-form settings-create" key={result?.created?.key ?? "create"} noValidate>
            <input type="hidden" name="intent" value="create" />
            <ErrorSummary problem={createProblem} fieldIds={{ name: "key-name", role: "key-role" }} />
            <div className="console-row">
              <div className="console-field">
                <label htmlFor="key-name">Name</label>
                <input
                  id="key-name"
                  name="name"
                  required
                  maxLength={100}
                  defaultValue={result?.intent === "create" ? result.values?.name : undefined}
                  aria-invalid={createProblem?.fields.name ? true : undefined}
                  aria-describedby={createProblem?.fields.name ? "key-name-error" : "key-name-hint"}
                />
                <p className="hint" id="key-name-hint">
                  What it is for, e.g. &ldquo;Warehouse sync&rdquo;.
                </p>
                <FieldError id="key-name-error" message={createProblem?.fields.name} />
              </div>
              <div className="console-field">
                <label htmlFor="key-role">Role</label>
                <select
                  id="key-role"
                  name="role"
                  defaultValue={result?.intent === "create" ? (result.values?.role ?? "STAFF") : "STAFF"}
                  aria-invalid={createProblem?.fields.role ? true : undefined}
                  aria-describedby={createProblem?.fields.role ? "key-role-error" : undefined}
                >
                  <option value="STAFF">Staff: merchant work</option>
                  <option value="OWNER">Owner: everything</option>
                </select>
                <FieldError id="key-role-error" message={createProblem?.fields.role} />
              </div>
            </div>
            <fieldset>
              <legend>A Staff key may change</legend>
              <PermissionChecks />
            </fieldset>
            <div>
              <button type="submit" className="console-button primary" disabled={busy}>
                Create key
              </button>
            </div>
          </Form>
        </>
      )}
    </>
  );
}
