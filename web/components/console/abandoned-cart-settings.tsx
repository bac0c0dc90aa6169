import { Form } from "react-router";
import { Checkbox, ErrorSummary, Field, FieldError, fieldId, type Problem } from "../ui/form";
import { DataTable } from "../ui/table";
import { SCHEDULE_STEPS, type SettingsValues } from "./abandoned-carts";
import { Facts } from "./automation-lists";

/**
 * The abandoned-cart automation's settings: the form (fields named by the settings' API paths, the schedule's by
 * step, whose errors the action places), and the same settings as text for staff who may look but not change them.
 */

const SCHEDULE = "recoveryEmailDelaysMinutes";

/** The settings form; `problem` is the last refused save, its errors at their fields. */
export function SettingsForm({ values, problem, busy }: { values: SettingsValues; problem: Problem | null | undefined; busy: boolean }) {
  const err = (field: string) => problem?.fields[field];
  const scheduleError = err(SCHEDULE);
  const number = (name: string, label: string, value: string, hint: string, inputMode: "numeric" | "decimal" = "numeric") => (
    <Field name={name} label={label} inputMode={inputMode} defaultValue={value} hint={hint} error={err(name)} />
  );
  return (
    <Form method="post" className="console-form carts-settings" aria-labelledby="carts-settings-title" noValidate>
      <h2 id="carts-settings-title">Settings</h2>
      <ErrorSummary problem={problem} fieldIds={fieldId} />
      <Checkbox name="abandonedCartEnabled" label="Find abandoned carts and send recovery emails" defaultChecked={values.enabled} />
      <div className="carts-settings-grid">
        {number(
          "abandonedCartIdleMinutes",
          "Abandoned after (minutes idle)",
          values.idleMinutes,
          "A cart with items and a contact email, untouched this long.",
        )}
        {number("recoveryLinkDays", "Recovery link works for (days)", values.linkDays, "Counted from when the cart was abandoned.")}
        {number("highValueCartTotal", "Task for carts worth at least", values.highValue, "In the store’s currency. Empty: no tasks.", "decimal")}
        {number("lowStockThreshold", "Low stock below (units)", values.lowStock, "Opens a low-stock task. Empty: never.")}
      </div>
      <fieldset id={fieldId(SCHEDULE)} aria-describedby={scheduleError ? "carts-schedule-hint carts-schedule-error" : "carts-schedule-hint"}>
        <legend>Recovery emails</legend>
        <p className="hint" id="carts-schedule-hint">
          Each reminder goes out this many hours after the cart was abandoned, in increasing order. Switch a step off to skip it.
        </p>
        <FieldError id="carts-schedule-error" message={scheduleError} />
        <DataTable<number>
          caption="Recovery email schedule"
          className="carts-schedule"
          rows={Array.from({ length: SCHEDULE_STEPS }, (_, i) => i + 1)}
          rowKey={String}
          columns={[
            { header: "Reminder", rowHeader: true, cell: (step) => `Email ${step}` },
            {
              header: "Send",
              cell: (step) => (
                <input
                  type="checkbox"
                  id={fieldId(`step${step}On`)}
                  name={`step${step}On`}
                  defaultChecked={values.steps[step - 1].on}
                  aria-label={`Send email ${step}`}
                />
              ),
            },
            {
              header: "Hours after abandonment",
              cell: (step) => {
                const name = `step${step}Hours`;
                const message = err(name);
                return (
                  <>
                    <input
                      id={fieldId(name)}
                      name={name}
                      inputMode="decimal"
                      className="carts-hours"
                      defaultValue={values.steps[step - 1].hours}
                      aria-label={`Email ${step}: hours after abandonment`}
                      aria-invalid={message ? true : undefined}
                      aria-describedby={message ? `${fieldId(name)}-error` : undefined}
                    />
                    <FieldError id={`${fieldId(name)}-error`} message={message} />
                  </>
                );
              },
            },
          ]}
        />
      </fieldset>
      <button type="submit" className="console-button primary" disabled={busy}>
        Save settings
      </button>
    </Form>
  );
}

/** The settings as text, for staff who may look but not change them. */
export function SettingsSummary({ values }: { values: SettingsValues }) {
  const on = values.steps.filter((s) => s.on);
  return (
    <section aria-labelledby="carts-settings-title" className="carts-settings">
      <h2 id="carts-settings-title">Settings</h2>
      <Facts
        facts={[
          ["Abandoned-cart emails", values.enabled ? "On" : "Off"],
          ["Abandoned after", `${values.idleMinutes} minutes idle`],
          ["Recovery emails", on.length ? `${on.map((s) => s.hours).join(", ")} hours after abandonment` : "None"],
          ["Recovery link works for", `${values.linkDays} days`],
          ["Task for carts worth at least", values.highValue || "Never"],
          ["Low stock below", values.lowStock || "Never"],
        ]}
      />
      <p className="console-muted">Changing these needs the “automations” permission.</p>
    </section>
  );
}
