import { Form, useNavigation, useRouteLoaderData } from "react-router";
import { createApiKey, createApiKeyRequest, listApiKeys, revokeApiKey, updateApiKeyPermissions, updateApiKeyRequest } from "#worker/identity";
import { requireOwner } from "#worker/platform/context";
import { parseWith } from "#worker/platform/validation";
import { ApiKeysTable, CreateKeyForm } from "#web/components/console/people";
import { byIntent } from "#web/components/console/problem.server";
import { SecretOnce } from "#web/components/console/secret-once";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { EmptyState, Notice, PageHead } from "#web/components/ui/page";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/api-keys";

export const meta = consoleMeta("API keys — Settings — Console");

/** Every API key made (never the keys themselves): one D1 read besides the session. */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => {
  return { apiKeys: await listApiKeys(context.services) };
});

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
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const ctx = context.services;
  const form = await request.formData();
  const field = (name: string) => String(form.get(name) ?? "").slice(0, 200);
  const permissions = form.getAll("permissions").map(String);
  return byIntent<Pick<ActionResult, "ok" | "created" | "confirmRevoke">>(form, {
    create: async () => {
      const input = parseWith(createApiKeyRequest, { name: field("name"), role: field("role"), permissions });
      const { apiKey, key } = await createApiKey(ctx, input);
      return { ok: `Created the key “${apiKey.name}”.`, created: { name: apiKey.name, key } };
    },
    permissions: async () => {
      const apiKey = await updateApiKeyPermissions(ctx, field("id"), parseWith(updateApiKeyRequest, { permissions }));
      return { ok: `Saved what “${apiKey.name}” may do.` };
    },
    revoke: async () => {
      if (form.get("confirm") !== "yes") {
        // Only worth asking someone who may revoke.
        requireOwner(ctx);
        return { ok: null, confirmRevoke: { id: field("id"), name: field("name") } };
      }
      const apiKey = await revokeApiKey(ctx, field("id"));
      return { ok: `Revoked “${apiKey.name}”: it is refused from now on.` };
    },
  });
});

/** The question a revoke without JavaScript answers with, and its second press. */
function ConfirmRevoke({ id, name }: { id: string; name: string }) {
  return (
    <Form method="post" className="console-error" aria-label="Confirm revoking">
      <p>Revoke “{name}”? Programs using it are refused from their next request. This cannot be undone.</p>
      <input type="hidden" name="intent" value="revoke" />
      <input type="hidden" name="id" value={id} />
      <input type="hidden" name="name" value={name} />
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
  );
}

export default function ApiKeys({ loaderData, actionData }: Route.ComponentProps) {
  const { apiKeys } = loaderData;
  const isOwner = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user?.role === "OWNER";
  const busy = useNavigation().state === "submitting";
  const result = actionData as ActionResult | undefined;
  const create = result?.intent === "create" ? result : undefined;
  return (
    <>
      <PageHead title="API keys">
        <SettingsNav />
      </PageHead>
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
      <Notice text={result?.created ? null : result?.ok} />
      {result?.intent !== "create" && <ErrorSummary problem={result?.problem} />}
      {result?.confirmRevoke && <ConfirmRevoke {...result.confirmRevoke} />}
      {apiKeys.length === 0 ? <EmptyState>No API keys yet.</EmptyState> : <ApiKeysTable apiKeys={apiKeys} isOwner={isOwner} busy={busy} />}
      {isOwner && (
        <>
          <h2>Create a key</h2>
          <CreateKeyForm key={result?.created?.key ?? "create"} problem={create?.problem} values={create?.values} busy={busy} />
        </>
      )}
    </>
  );
}
