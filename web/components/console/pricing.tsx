import type { ReactNode } from "react";
import { Form, Link, useLocation, useNavigation, useRouteLoaderData } from "react-router";
import { Badge } from "./badge";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import type { PricingActionData } from "./pricing.server";

/**
 * UI pieces of the pricing pages: their tabs, where the service's errors show, the delete-with-confirmation
 * section, and how money and statuses read (the fields are the form kit's, web/components/ui/form.tsx).
 */

const TABS = [
  { to: "/console/pricing", label: "Coupons", also: "/console/pricing/coupons/" },
  { to: "/console/pricing/discounts", label: "Discount rules" },
  { to: "/console/pricing/shipping", label: "Shipping" },
  { to: "/console/pricing/tax", label: "Tax" },
  { to: "/console/pricing/fees", label: "Additional fees" },
] as const;

/** Which tab a path belongs to: its own address or below it (a coupon's editor is under the Coupons tab). */
function tabOf(pathname: string): string | undefined {
  const path = pathname.replace(/\/+$/, "");
  return TABS.find(
    (t) =>
      ("also" in t && path.startsWith(t.also)) || (t.to !== "/console/pricing" && (path === t.to || path.startsWith(`${t.to}/`))) || path === t.to,
  )?.to;
}

/** The pricing section's own tabs, under each pricing page's heading. */
export function PricingNav() {
  const { pathname } = useLocation();
  const current = tabOf(pathname);
  return (
    <nav aria-label="Pricing" className="console-tabs">
      <ul>
        {TABS.map((t) => (
          <li key={t.to}>
            <Link
              to={t.to}
              prefetch="intent"
              className={t.to === current ? "active" : undefined}
              aria-current={t.to === current ? (pathname === t.to ? "page" : "true") : undefined}
            >
              {t.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}

/** Whether the signed-in person may change pricing (the services enforce it; pages only hide the controls). */
export function useCanManagePricing(): boolean {
  const user = useRouteLoaderData("routes/console/layout") as { user?: { permissions: string[] } } | undefined;
  return !!user?.user?.permissions.includes("settings.manage");
}

/**
 * Where a service's field paths show in a form: [API path, input id] pairs; a path ending in "*" also takes what
 * lies under it (`shippingRegion.countries*` takes `shippingRegion.countries[2]`).
 */
export type FieldPlaces = readonly (readonly [string, string])[];

function placeOf(path: string, places: FieldPlaces): string | undefined {
  const exact = places.find(([p]) => p === path);
  if (exact) return exact[1];
  let best: readonly [string, string] | undefined;
  for (const place of places) {
    if (!place[0].endsWith("*")) continue;
    const stem = place[0].slice(0, -1);
    if (path.startsWith(stem) && (!best || stem.length > best[0].length - 1)) best = place;
  }
  return best?.[1];
}

/** Each input id's message, and the summary's links (API path → input id). */
export function errorsOf(problem: Problem | null | undefined, places: FieldPlaces) {
  const byId: Record<string, string> = {};
  const fieldIds: Record<string, string> = {};
  for (const [path, message] of Object.entries(problem?.fields ?? {})) {
    const id = placeOf(path, places);
    if (!id) continue;
    fieldIds[path] = id;
    byId[id] = byId[id] ? `${byId[id]} ${message}` : message;
  }
  return { byId, fieldIds };
}

/** What a field shows: the typed value after a refused save, else the stored one. */
export function formValues(values: Record<string, string> | null | undefined) {
  return {
    text: (name: string, stored: string | number | null | undefined) => (values ? (values[name] ?? "") : stored == null ? "" : String(stored)),
    checked: (name: string, stored: boolean) => (values ? name in values : stored),
  };
}

/**
 * An edit page's form: the problem summary with links to the fields, the fields (disabled for someone who may not
 * change pricing, who also gets no buttons), the revision the page was loaded at, and Save.
 */
export function PricingForm({
  label,
  problem,
  fieldIds,
  revision,
  canWrite,
  submitLabel,
  children,
}: {
  label: string;
  problem: Problem | null | undefined;
  fieldIds: Record<string, string>;
  revision: string | null;
  canWrite: boolean;
  submitLabel: string;
  children: ReactNode;
}) {
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formData?.get("intent") === "save";
  return (
    <Form method="post" className="console-form pricing-form" aria-label={label} noValidate>
      <ErrorSummary problem={problem} fieldIds={fieldIds} />
      {!canWrite && <p className="console-muted">Changing pricing needs the permission “settings.manage”; you can look but not change.</p>}
      <fieldset disabled={!canWrite} className="pricing-fields">
        <legend className="visually-hidden">{label}</legend>
        {children}
      </fieldset>
      {revision && <input type="hidden" name="revision" value={revision} />}
      {canWrite && (
        <div className="console-actions">
          <button type="submit" name="intent" value="save" className="console-button primary" disabled={busy}>
            {busy ? "Saving…" : submitLabel}
          </button>
        </div>
      )}
    </Form>
  );
}

/** Delete, asked twice: the first press shows the confirmation (from the action, so it works without JavaScript). */
export function DeleteSection({ what, confirming, problem }: { what: string; confirming: boolean; problem: Problem | null | undefined }) {
  return (
    <section aria-labelledby="pricing-delete-heading" className="pricing-danger">
      <h2 id="pricing-delete-heading">{`Delete ${what}`}</h2>
      {problem && <ErrorSummary problem={problem} />}
      <Form method="post">
        <input type="hidden" name="intent" value="delete" />
        {confirming ? (
          <>
            <p role="alert">{`Delete ${what} for good? This cannot be undone.`}</p>
            <input type="hidden" name="confirm" value="yes" />
            <button type="submit" className="console-button danger">
              {`Yes, delete ${what}`}
            </button>
          </>
        ) : (
          <button type="submit" className="console-button danger">
            Delete…
          </button>
        )}
      </Form>
    </section>
  );
}

/** What an edit page's fields need: the action's result, the write permission, errors by input id, typed values. */
export function usePricingEditor(actionData: unknown, places: FieldPlaces) {
  const result = actionData as PricingActionData | undefined;
  const canWrite = useCanManagePricing();
  const { byId, fieldIds } = errorsOf(result?.problem, places);
  const f = formValues(result?.values);
  return {
    result,
    canWrite,
    byId,
    fieldIds,
    f,
    /** A text field or select's id, name, shown value and error (`<Field {...field("fee-name", "name", fe?.name)} />`). */
    field: (id: string, name: string, stored: string | number | null | undefined) => ({
      id,
      name,
      defaultValue: f.text(name, stored),
      error: byId[id],
    }),
    /** A checkbox's id, name, tick and error. */
    check: (id: string, name: string, stored: boolean) => ({ id, name, defaultChecked: f.checked(name, stored), error: byId[id] }),
  };
}

/**
 * The frame of a pricing edit page: the way back to its list, the heading, the tabs, an optional note, the form and,
 * for a stored item someone may change, the delete section (`deleteWhat` names the item; none for a new one).
 */
export function PricingEditor({
  back,
  title,
  note,
  result,
  fieldIds,
  revision,
  canWrite,
  submitLabel,
  deleteWhat,
  children,
}: {
  back: readonly [to: string, label: string];
  title: string;
  note?: ReactNode;
  result: PricingActionData | undefined;
  fieldIds: Record<string, string>;
  revision: string | null;
  canWrite: boolean;
  submitLabel: string;
  deleteWhat: string | null;
  children: ReactNode;
}) {
  return (
    <>
      <p>
        <Link to={back[0]}>{`← ${back[1]}`}</Link>
      </p>
      <h1>{title}</h1>
      <PricingNav />
      {note}
      <PricingForm
        label={title}
        problem={result?.values ? result.problem : null}
        fieldIds={fieldIds}
        revision={revision}
        canWrite={canWrite}
        submitLabel={submitLabel}
      >
        {children}
      </PricingForm>
      {deleteWhat && canWrite && (
        <DeleteSection what={deleteWhat} confirming={!!result?.confirmDelete} problem={result && !result.values ? result.problem : null} />
      )}
    </>
  );
}

/** The parameters of that notice (noticeOf in ./pricing.server): said once, so a list's page links leave them out. */
export const NOTICE_PARAMS = ["saved", "deleted"] as const;

/** The notice a list shows after a save or delete. */
export function Notice({ text }: { text: string | null }) {
  if (!text) return null;
  return (
    <p className="console-notice" role="status">
      {text}
    </p>
  );
}

/** A decimal amount of the store currency as the merchant reads it ("$12.50"). */
export function money(amount: string | number | null | undefined, currency: string): string {
  if (amount === null || amount === undefined || amount === "") return "—";
  return new Intl.NumberFormat("en-US", { style: "currency", currency }).format(Number(amount));
}

/** A stored ISO time as a `datetime-local` value in UTC ("" for none). */
export function isoToInput(iso: string | null | undefined): string {
  return iso ? new Date(iso).toISOString().slice(0, 16) : "";
}

/** A stored time in UTC, short. */
export function when(iso: string | null | undefined): string {
  return iso ? `${new Date(iso).toISOString().slice(0, 16).replace("T", " ")} UTC` : "";
}

/** A validity window as it reads in a list. */
export function schedule(start: string | null, end: string | null): string {
  if (!start && !end) return "Always";
  if (start && end) return `${when(start)} to ${when(end)}`;
  return start ? `From ${when(start)}` : `Until ${when(end)}`;
}

/** A schedule and switch as a status: Off, Scheduled, Active, Expired (the services compute LIVE/PENDING/EXPIRED). */
export function StatusBadge({ active, status, usedUp }: { active: boolean; status: string; usedUp?: boolean }) {
  if (!active) return <Badge>Off</Badge>;
  if (status === "EXPIRED") return <Badge tone="bad">Expired</Badge>;
  if (usedUp) return <Badge tone="bad">Used up</Badge>;
  if (status === "PENDING") return <Badge tone="warn">Scheduled</Badge>;
  return <Badge tone="good">Active</Badge>;
}
