import { data, Form, Link, useNavigation, useRouteLoaderData } from "react-router";
import { getAutomationSettings, queryAbandonedCheckouts, updateAutomationSettings } from "#worker/automations";
import { requirePermission } from "#worker/platform/context";
import { CARTS_PAGE_SIZE, readCartFilters, readSettingsForm, settingsPatchOf, settingsValues } from "#web/components/console/abandoned-carts.server";
import {
  CART_STATUSES,
  CartStatusBadge,
  contactOf,
  itemsCount,
  SCHEDULE_STEPS,
  settingsFieldIds,
  stepsOn,
  type SettingsValues,
} from "#web/components/console/abandoned-carts";
import { dateTimeText } from "#web/components/console/automation-lists";
import { AutomationsNav } from "#web/components/console/automations-nav";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { Pager } from "#web/components/console/pager";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-automation-lists.css";
import "#web/styles/console-abandoned-carts.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/carts";

export function meta({ matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, "Abandoned carts — Automations — Console") }];
}

export const headers = () => consoleHeaders;

/**
 * The abandoned carts for the status in the URL, newest first, and the automation's settings: the abandoned-checkout
 * query (one batch with its activities) and the settings read (3 D1 round trips with the session).
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  requireStaff(context, request);
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
    pages: Math.max(1, Math.ceil(total / CARTS_PAGE_SIZE)),
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
}

/** The automation's settings through the settings service (automations.manage); errors come back at their fields. */
export async function action({ context, request }: Route.ActionArgs) {
  requireStaff(context, request);
  const values = readSettingsForm(await request.formData());
  try {
    // Refused before the form is read further, so a viewer learns nothing from a validation message.
    requirePermission(context.services, "automations.manage");
    await updateAutomationSettings(context.services, settingsPatchOf(values));
    return { ok: "Settings saved.", problem: null as Problem | null, values };
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ ok: null, problem, values }, { status: problem.status ?? 400 });
  }
}

function SettingsForm({ values, problem, busy }: { values: SettingsValues; problem: Problem | null | undefined; busy: boolean }) {
  const on = stepsOn(values);
  const err = (field: string) => problem?.fields[field];
  const stepError = (step: number) => {
    const k = on.indexOf(step);
    return k >= 0 ? err(`recoveryEmailDelaysMinutes[${k}]`) : undefined;
  };
  const described = (id: string, message: string | undefined, hint = true) =>
    [hint ? `${id}-hint` : "", message ? `${id}-error` : ""].filter(Boolean).join(" ") || undefined;
  const scheduleError = err("recoveryEmailDelaysMinutes");
  return (
    <Form method="post" className="console-form carts-settings" aria-labelledby="carts-settings-title" noValidate>
      <h2 id="carts-settings-title">Settings</h2>
      <ErrorSummary problem={problem} fieldIds={settingsFieldIds(on)} />
      <div className="console-check">
        <input id="carts-enabled" type="checkbox" name="enabled" defaultChecked={values.enabled} />
        <label htmlFor="carts-enabled">Find abandoned carts and send recovery emails</label>
      </div>
      <div className="carts-settings-grid">
        <div className="console-field">
          <label htmlFor="carts-idle">Abandoned after (minutes idle)</label>
          <input
            id="carts-idle"
            name="idleMinutes"
            inputMode="numeric"
            defaultValue={values.idleMinutes}
            aria-invalid={err("abandonedCartIdleMinutes") ? true : undefined}
            aria-describedby={described("carts-idle", err("abandonedCartIdleMinutes"))}
          />
          <p className="hint" id="carts-idle-hint">
            A cart with items and a contact email, untouched this long.
          </p>
          <FieldError id="carts-idle-error" message={err("abandonedCartIdleMinutes")} />
        </div>
        <div className="console-field">
          <label htmlFor="carts-link-days">Recovery link works for (days)</label>
          <input
            id="carts-link-days"
            name="linkDays"
            inputMode="numeric"
            defaultValue={values.linkDays}
            aria-invalid={err("recoveryLinkDays") ? true : undefined}
            aria-describedby={described("carts-link-days", err("recoveryLinkDays"))}
          />
          <p className="hint" id="carts-link-days-hint">
            Counted from when the cart was abandoned.
          </p>
          <FieldError id="carts-link-days-error" message={err("recoveryLinkDays")} />
        </div>
        <div className="console-field">
          <label htmlFor="carts-high-value">Task for carts worth at least</label>
          <input
            id="carts-high-value"
            name="highValue"
            inputMode="decimal"
            defaultValue={values.highValue}
            aria-invalid={err("highValueCartTotal") ? true : undefined}
            aria-describedby={described("carts-high-value", err("highValueCartTotal"))}
          />
          <p className="hint" id="carts-high-value-hint">
            In the store&rsquo;s currency. Empty: no tasks.
          </p>
          <FieldError id="carts-high-value-error" message={err("highValueCartTotal")} />
        </div>
        <div className="console-field">
          <label htmlFor="carts-low-stock">Low stock below (units)</label>
          <input
            id="carts-low-stock"
            name="lowStock"
            inputMode="numeric"
            defaultValue={values.lowStock}
            aria-invalid={err("lowStockThreshold") ? true : undefined}
            aria-describedby={described("carts-low-stock", err("lowStockThreshold"))}
          />
          <p className="hint" id="carts-low-stock-hint">
            Opens a low-stock task. Empty: never.
          </p>
          <FieldError id="carts-low-stock-error" message={err("lowStockThreshold")} />
        </div>
      </div>
      <fieldset aria-describedby={scheduleError ? "carts-schedule-hint carts-schedule-error" : "carts-schedule-hint"}>
        <legend>Recovery emails</legend>
        <p className="hint" id="carts-schedule-hint">
          Each reminder goes out this many hours after the cart was abandoned, in increasing order. Switch a step off to skip it.
        </p>
        <FieldError id="carts-schedule-error" message={scheduleError} />
        <table className="console-table carts-schedule">
          <thead>
            <tr>
              <th scope="col">Reminder</th>
              <th scope="col">Send</th>
              <th scope="col">Hours after abandonment</th>
            </tr>
          </thead>
          <tbody>
            {Array.from({ length: SCHEDULE_STEPS }, (_, i) => {
              const step = i + 1;
              const message = stepError(step);
              return (
                <tr key={step}>
                  <th scope="row">{`Email ${step}`}</th>
                  <td>
                    <input
                      type="checkbox"
                      id={`carts-step${step}-on`}
                      name={`step${step}On`}
                      defaultChecked={values.steps[i].on}
                      aria-label={`Send email ${step}`}
                    />
                  </td>
                  <td>
                    <input
                      id={`carts-step${step}-hours`}
                      name={`step${step}Hours`}
                      inputMode="decimal"
                      className="carts-hours"
                      defaultValue={values.steps[i].hours}
                      aria-label={`Email ${step}: hours after abandonment`}
                      aria-invalid={message ? true : undefined}
                      aria-describedby={message ? `carts-step${step}-hours-error` : undefined}
                    />
                    <FieldError id={`carts-step${step}-hours-error`} message={message} />
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </fieldset>
      <button type="submit" className="console-button primary" disabled={busy}>
        Save settings
      </button>
    </Form>
  );
}

/** The settings as text, for staff who may look but not change them. */
function SettingsSummary({ values }: { values: SettingsValues }) {
  const on = values.steps.filter((s) => s.on);
  return (
    <section aria-labelledby="carts-settings-title" className="carts-settings">
      <h2 id="carts-settings-title">Settings</h2>
      <dl className="automation-facts">
        <div>
          <dt>Abandoned-cart emails</dt>
          <dd>{values.enabled ? "On" : "Off"}</dd>
        </div>
        <div>
          <dt>Abandoned after</dt>
          <dd>{values.idleMinutes} minutes idle</dd>
        </div>
        <div>
          <dt>Recovery emails</dt>
          <dd>{on.length ? `${on.map((s) => s.hours).join(", ")} hours after abandonment` : "None"}</dd>
        </div>
        <div>
          <dt>Recovery link works for</dt>
          <dd>{values.linkDays} days</dd>
        </div>
        <div>
          <dt>Task for carts worth at least</dt>
          <dd>{values.highValue || "Never"}</dd>
        </div>
        <div>
          <dt>Low stock below</dt>
          <dd>{values.lowStock || "Never"}</dd>
        </div>
      </dl>
      <p className="console-muted">Changing these needs the &ldquo;automations&rdquo; permission.</p>
    </section>
  );
}

export default function ConsoleAbandonedCarts({ loaderData, actionData }: Route.ComponentProps) {
  const { status, carts, total, page, pages, recoveredCount, recoveredRevenue, settings } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const navigation = useNavigation();
  const busy = navigation.state === "submitting";
  const label = status === "ABANDONED" ? "abandoned" : status === "RECOVERED" ? "recovered" : "";
  return (
    <>
      <h1>Abandoned carts</h1>
      <AutomationsNav />
      <p className="console-muted">
        Carts left with items and a contact email. The shop emails a link back to the cart on the schedule below; a cart bought later counts as
        recovered.
      </p>
      {actionData?.ok && (
        <p className="console-notice" role="status">
          {actionData.ok}
        </p>
      )}
      <Form method="get" className="console-toolbar" role="search" aria-label="Filter abandoned carts">
        <div className="console-field">
          <label htmlFor="carts-status">Status</label>
          <select id="carts-status" name="status" defaultValue={status}>
            <option value="">Any</option>
            {CART_STATUSES.map((s) => (
              <option key={s} value={s}>
                {s === "ABANDONED" ? "Abandoned" : "Recovered"}
              </option>
            ))}
          </select>
        </div>
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={navigation.state === "loading"}>
            Show carts
          </button>
        </div>
      </Form>
      {carts.length === 0 ? (
        <p className="console-muted" role="status">
          {label ? `No ${label} carts.` : "No abandoned carts yet. A cart shows up here once it sits idle past the threshold below."}
        </p>
      ) : (
        <>
          <p className="console-muted" role="status">
            {`${total} ${label ? `${label} ` : ""}${total === 1 ? "cart" : "carts"}`}
            {recoveredCount > 0 ? `; ${recoveredCount} recovered, ${recoveredRevenue} in recovered revenue.` : "."}
          </p>
          <div className="console-scroll">
            <table className="console-table">
              <caption className="visually-hidden">{label ? `${label[0].toUpperCase()}${label.slice(1)} carts` : "Abandoned carts"}</caption>
              <thead>
                <tr>
                  <th scope="col">Contact</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Total
                  </th>
                  <th scope="col" className="num">
                    Items
                  </th>
                  <th scope="col">Abandoned</th>
                </tr>
              </thead>
              <tbody>
                {carts.map((c) => (
                  <tr key={c.id}>
                    <th scope="row">
                      <Link to={`/console/automations/carts/${c.id}`} prefetch="intent">
                        {c.contact}
                      </Link>
                    </th>
                    <td>
                      <CartStatusBadge status={c.status} />
                      {c.recoveredRevenue && <div className="console-muted">{`${c.recoveredRevenue} on ${dateTimeText(c.recoveredDate)}`}</div>}
                    </td>
                    <td className="num">{c.total}</td>
                    <td className="num">{c.items}</td>
                    <td>{dateTimeText(c.abandonTime)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pages={pages} label="Pages of abandoned carts" />
        </>
      )}
      {user?.permissions.includes("automations.manage") ? (
        <SettingsForm key={actionData?.ok ? "saved" : "form"} values={actionData?.values ?? settings} problem={actionData?.problem} busy={busy} />
      ) : (
        <SettingsSummary values={settings} />
      )}
    </>
  );
}
