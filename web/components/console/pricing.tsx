import type { ComponentProps } from "react";
import { Link, useLocation } from "react-router";
import { Badge } from "./badge";
import { EditPage, useEditor } from "#web/components/ui/page";

/**
 * UI pieces of the pricing pages: their tabs, their edit frame (the kit's, web/components/ui/page.tsx, with the tabs),
 * and how money and statuses read.
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

/** The permission every pricing change needs. */
export const PRICING_PERMISSION = "settings.manage";

/**
 * The frame of a pricing edit page: the kit's edit page (way back, heading, note, form, delete asked twice) with the
 * pricing tabs under the heading, asking for settings.manage.
 */
export function PricingEditor(props: Omit<ComponentProps<typeof EditPage>, "nav" | "permission" | "className" | "subject">) {
  return <EditPage {...props} nav={<PricingNav />} permission={PRICING_PERMISSION} className="pricing-form" subject="pricing" />;
}

/** How a pricing edit page names its item (null: a new one) in its heading, buttons and delete question. */
interface PricingItemWords<T> {
  back: readonly [to: string, label: string];
  /** The kind of item as the buttons name it ("Save tax group", "Create tax group"). */
  noun: string;
  /** The heading of a new one. */
  fresh: string;
  /** The heading of a stored one (default: its name). */
  title?: (item: T) => string;
  /** What delete names it (default: the noun and its name in quotes). */
  named?: (item: T) => string;
}

/**
 * A pricing edit page's fields (useEditor, asking for settings.manage) and its frame's props for PricingEditor: the
 * way back, the heading, the revision the page was loaded at, Save or Create, and what delete names.
 */
export function usePricingEditor<T extends { name: string; revision: string }>(actionData: unknown, item: T | null, words: PricingItemWords<T>) {
  const editor = useEditor(actionData, PRICING_PERMISSION);
  const frame = {
    back: words.back,
    title: item ? (words.title?.(item) ?? item.name) : words.fresh,
    result: editor.result,
    revision: item?.revision ?? null,
    canWrite: editor.canWrite,
    submitLabel: `${item ? "Save" : "Create"} ${words.noun}`,
    deleteWhat: item ? (words.named?.(item) ?? `${words.noun} “${item.name}”`) : null,
  };
  return { ...editor, frame };
}

/** The parameters of that notice (noticeOf in ./pricing.server): said once, so a list's page links leave them out. */
export const NOTICE_PARAMS = ["saved", "deleted"] as const;

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
