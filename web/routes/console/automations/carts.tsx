import { data, useNavigation } from "react-router";
import { getAutomationSettings, queryAbandonedCheckouts, updateAutomationSettings } from "#worker/automations";
import { requirePermission } from "#worker/platform/context";
import { SettingsForm, SettingsSummary } from "#web/components/console/abandoned-cart-settings";
import { CART_STATUSES, CartStatusBadge, contactOf, itemsCount } from "#web/components/console/abandoned-carts";
import {
  CARTS_PAGE_SIZE,
  readCartFilters,
  readSettingsForm,
  settingsFieldOf,
  settingsPatchOf,
  settingsValues,
} from "#web/components/console/abandoned-carts.server";
import { AutomationHead, dateTimeText, pagesOf } from "#web/components/console/automation-lists";
import { FilterBar } from "#web/components/console/filter-bar";
import { Pager } from "#web/components/console/pager";
import { consoleMeta } from "#web/components/console/title";
import { type Problem, Select } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { EmptyState, useCan } from "#web/components/ui/page";
import { DataTable, ListStatus, linkColumn } from "#web/components/ui/table";
import { staffOnly } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import "#web/styles/console-abandoned-carts.css";
import type { Route } from "./+types/carts";

export const meta = consoleMeta("Abandoned carts — Automations — Console");

/**
 * The abandoned carts for the status in the URL, newest first, and the automation's settings: the abandoned-checkout
 * query (one batch with its activities) and the settings read (3 D1 round trips with the session).
 */
export const loader = staffOnly(async ({ context, request }: Route.LoaderArgs) => {
  const { status, page } = readCartFilters(new URL(request.url));
  const ctx = context.services;
  const result = await queryAbandonedCheckouts(ctx, {
    filter: status ? { status } : undefined,
    paging: { limit: CARTS_PAGE_SIZE, offset: (page - 1) * CARTS_PAGE_SIZE },
  });
  const { settings } = await getAutomationSettings(ctx);
  const total = result.metadata.total;
  return {
    status,
    page,
    pages: pagesOf(total, CARTS_PAGE_SIZE),
    total,
    recoveredCount: result.metadata.recoveredCount,
    recoveredRevenue: result.metadata.recoveredRevenue.formattedAmount,
    carts: result.abandonedCheckouts.map((c) => ({
      id: c.id,
      status: c.status,
      contact: contactOf(c),
      total: c.totalPrice.formattedAmount,
      items: itemsCount(c.lineItems),
      abandonTime: c.abandonTime,
      recoveredDate: c.checkoutRecoveredDate ?? null,
      recoveredRevenue: c.recoveredRevenue?.formattedAmount ?? null,
    })),
    settings: settingsValues(settings),
  };
});

/** The automation's settings through the settings service (automations.manage); errors come back at their fields. */
export const action = staffOnly(async ({ context, request }: Route.ActionArgs) => {
  const values = readSettingsForm(await request.formData());
  try {
    // Refused before the form is read further, so a viewer learns nothing from a validation message.
    requirePermission(context.services, "automations.manage");
    await updateAutomationSettings(context.services, settingsPatchOf(values));
    return { ok: "Settings saved.", problem: null as Problem | null, values };
  } catch (err) {
    const problem = problemOf(err, { ...CONSOLE, fieldOf: settingsFieldOf(values) });
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
});

type Cart = Route.ComponentProps["loaderData"]["carts"][number];

export default function ConsoleAbandonedCarts({ loaderData, actionData }: Route.ComponentProps) {
  const { status, carts, total, page, pages, recoveredCount, recoveredRevenue, settings } = loaderData;
  const mayManage = useCan("automations.manage");
  const busy = useNavigation().state === "submitting";
  const label = status === "ABANDONED" ? "abandoned" : status === "RECOVERED" ? "recovered" : "";
  return (
    <>
      <AutomationHead
        title="Abandoned carts"
        intro="Carts left with items and a contact email. The shop emails a link back to the cart on the schedule below; a cart bought later counts as recovered."
        result={actionData?.ok ? { ok: actionData.ok, problem: null } : null}
      />
      <FilterBar label="Filter abandoned carts" search submit="Show carts">
        <Select
          id="carts-status"
          name="status"
          label="Status"
          defaultValue={status}
          placeholder="Any"
          options={CART_STATUSES.map((s) => [s, s === "ABANDONED" ? "Abandoned" : "Recovered"] as const)}
        />
      </FilterBar>
      {carts.length === 0 ? (
        <EmptyState>
          {label ? `No ${label} carts.` : "No abandoned carts yet. A cart shows up here once it sits idle past the threshold below."}
        </EmptyState>
      ) : (
        <>
          <ListStatus>
            {`${total} ${label ? `${label} ` : ""}${total === 1 ? "cart" : "carts"}`}
            {recoveredCount > 0 ? `; ${recoveredCount} recovered, ${recoveredRevenue} in recovered revenue.` : "."}
          </ListStatus>
          <DataTable<Cart>
            caption={label ? `${label[0].toUpperCase()}${label.slice(1)} carts` : "Abandoned carts"}
            rows={carts}
            rowKey={(c) => c.id}
            columns={[
              linkColumn(
                "Contact",
                (c) => `/console/automations/carts/${c.id}`,
                (c) => c.contact,
                { prefetch: "intent" },
              ),
              {
                header: "Status",
                cell: (c) => (
                  <>
                    <CartStatusBadge status={c.status} />
                    {c.recoveredRevenue && <div className="console-muted">{`${c.recoveredRevenue} on ${dateTimeText(c.recoveredDate)}`}</div>}
                  </>
                ),
              },
              { header: "Total", num: true, cell: (c) => c.total },
              { header: "Items", num: true, cell: (c) => c.items },
              { header: "Abandoned", cell: (c) => dateTimeText(c.abandonTime) },
            ]}
          />
          <Pager page={page} pages={pages} label="Pages of abandoned carts" />
        </>
      )}
      {mayManage ? (
        <SettingsForm key={actionData?.ok ? "saved" : "form"} values={actionData?.values ?? settings} problem={actionData?.problem} busy={busy} />
      ) : (
        <SettingsSummary values={settings} />
      )}
    </>
  );
}
