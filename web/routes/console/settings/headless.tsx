import { Form, useNavigation } from "react-router";
import { listOAuthClients, MAX_VISITOR_TOKEN_BUDGET, updateClientRequest, updateOAuthClient } from "#worker/identity";
import { DEFAULT_VISITOR_TOKEN_BUDGET } from "#worker/platform/rate-limit";
import { parseWith } from "#worker/platform/validation";
import { byIntent } from "#web/components/console/problem.server";
import { SettingsNav } from "#web/components/console/settings-nav";
import { consoleMeta } from "#web/components/console/title";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { Notice, PageHead } from "#web/components/ui/page";
import { consoleHeaders, staffOnly } from "#web/console.server";
import "#web/styles/console-settings.css";
import type { Route } from "./+types/headless";

export const meta = consoleMeta("Headless sites — Settings — Console");

export const headers = () => consoleHeaders;

/** The OAuth clients (the shop's own and headless sites'), their redirect URIs and visitor-token budgets. */
export const loader = staffOnly(async ({ context }: Route.LoaderArgs) => ({ clients: await listOAuthClients(context.services) }));

type ActionResult = { intent: string; ok: string | null; problem: Problem | null; values?: Record<string, string> };

/** intent=budget: sets a client's visitor-token budget (empty: back to the default); settings.manage. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const form = await request.formData();
  return byIntent(form, {
    budget: async (values) => {
      const raw = (values.budget ?? "").trim();
      const budget = raw === "" ? null : /^\d+$/.test(raw) ? Number(raw) : raw;
      const client = await updateOAuthClient(
        context.services,
        values.id ?? "",
        parseWith(updateClientRequest, { client: { visitorTokenBudget: budget } }),
      );
      return {
        ok:
          client.visitorTokenBudget === null
            ? `“${client.name}” is back on the default of ${DEFAULT_VISITOR_TOKEN_BUDGET} visitor tokens per address.`
            : `“${client.name}” may now mint ${client.visitorTokenBudget} visitor tokens per address every 10 minutes.`,
      };
    },
  });
});

export default function HeadlessSettings({ loaderData, actionData }: Route.ComponentProps) {
  const result = actionData as ActionResult | undefined;
  const busy = useNavigation().state === "submitting";
  return (
    <>
      <PageHead title="Headless sites">
        <SettingsNav />
      </PageHead>
      <p className="console-muted">
        A headless site signs shoppers in and out through one of these OAuth clients. Its server mints a visitor token for most of its calls, all from
        one address: by default one address may mint {DEFAULT_VISITOR_TOKEN_BUDGET} every 10 minutes per client. Give a site&rsquo;s client a budget
        of its own so its server can serve every shopper; any other address stays on the default.
      </p>
      <Notice text={result?.ok} />
      <ErrorSummary problem={result?.problem} />
      <table className="console-table" id="oauth-clients">
        <thead>
          <tr>
            <th scope="col">Client</th>
            <th scope="col">Redirect URIs</th>
            <th scope="col">Visitor tokens per address (10 minutes)</th>
          </tr>
        </thead>
        <tbody>
          {loaderData.clients.map((c) => (
            <tr key={c.id} data-client-id={c.id}>
              <td>
                {c.name}
                {c.isDefault ? " (this shop)" : ""}
                <br />
                <code>{c.id}</code>
              </td>
              <td>{c.redirectUris.length ? c.redirectUris.join(", ") : c.allowAnyRedirect ? "Any (development)" : "This shop only"}</td>
              <td>
                <Form method="post">
                  <input type="hidden" name="intent" value="budget" />
                  <input type="hidden" name="id" value={c.id} />
                  <input
                    name="budget"
                    inputMode="numeric"
                    aria-label={`Visitor token budget of ${c.name}`}
                    defaultValue={c.visitorTokenBudget ?? ""}
                    placeholder={`${DEFAULT_VISITOR_TOKEN_BUDGET} (default)`}
                    aria-describedby="budget-hint"
                    size={10}
                  />{" "}
                  <button type="submit" className="console-button" disabled={busy}>
                    Save
                  </button>
                </Form>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p id="budget-hint" className="console-muted">
        A whole number from 1 to {MAX_VISITOR_TOKEN_BUDGET}; leave it empty for the default.
      </p>
    </>
  );
}
