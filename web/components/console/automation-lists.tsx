import type { ReactNode } from "react";
import { Link, useSearchParams } from "react-router";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { EmptyState, Notice, PageHead } from "#web/components/ui/page";
import { AutomationsNav } from "./automations-nav";
import { Badge, type Tone } from "./badge";

/**
 * Pieces of the automations section's pages: their head (heading, tabs, way back, intro, the outcome of an action),
 * facts, dates as merchants read them, status badges, and a list's states (the page links are ./pager).
 */

/** The head of an automations page: heading, the section's tabs, way back, intro, and what the last action did. */
export function AutomationHead({
  title,
  back,
  intro,
  result,
}: {
  title: ReactNode;
  back?: ReactNode;
  intro?: ReactNode;
  result?: { ok: string | null; problem: Problem | null } | null;
}) {
  return (
    <>
      <PageHead title={title}>
        <AutomationsNav />
      </PageHead>
      {back && <p>{back}</p>}
      {intro && <p className="console-muted">{intro}</p>}
      <Notice text={result?.ok} />
      <ErrorSummary problem={result?.problem} />
    </>
  );
}

/** One fact of a page's facts list: its term, its value, and whether it takes the whole row. */
export type Fact = readonly [term: string, value: ReactNode, wide?: boolean, valueClass?: string] | false | "" | 0 | null | undefined;

/** A page's facts (a cart's contact, an email's status…) as a definition list; false entries are left out. */
export function Facts({ facts }: { facts: readonly Fact[] }) {
  return (
    <dl className="automation-facts">
      {facts.map(
        (f) =>
          f && (
            <div key={f[0]} className={f[2] ? "automation-facts-wide" : undefined}>
              <dt>{f[0]}</dt>
              <dd className={f[3]}>{f[1]}</dd>
            </div>
          ),
      )}
    </dl>
  );
}

/** A list's body: past the last page, empty (why), or its rows (`children`: status line, table, pages). */
export function ListBody({
  shown,
  total,
  what,
  empty,
  children,
}: {
  shown: number;
  total: number;
  what: string;
  empty: ReactNode;
  children: ReactNode;
}) {
  if (shown === 0 && total > 0) return <PastTheEnd total={total} what={what} />;
  if (shown === 0) return <EmptyState>{empty}</EmptyState>;
  return <>{children}</>;
}

/** How many pages `total` rows make, `size` a page (at least one). */
export function pagesOf(total: number, size: number): number {
  return Math.max(1, Math.ceil(total / size));
}

/** "Nov 25, 2026, 6:02 PM UTC": the console shows times in UTC, as the services store them. */
export function dateTimeText(iso: string | null | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${new Intl.DateTimeFormat("en-US", { dateStyle: "medium", timeStyle: "short", timeZone: "UTC" }).format(d)} UTC`;
}

/** A status in words, with a colour that repeats what the word says (never colour alone). */
const TONES: Record<string, Tone | undefined> = {
  SENT: "good",
  NOTIFICATION_SENT: "good",
  DONE: "good",
  QUEUED: undefined,
  RECEIVED: "warn",
  PROCESSING: undefined,
  OPEN: "warn",
  FAILED: "bad",
  SUPPRESSED: undefined,
};

const WORDS: Record<string, string> = {
  QUEUED: "Queued",
  SENT: "Sent",
  FAILED: "Failed",
  SUPPRESSED: "Suppressed",
  RECEIVED: "Waiting",
  PROCESSING: "Sending",
  NOTIFICATION_SENT: "Notified",
  OPEN: "Open",
  DONE: "Done",
};

export function statusWord(status: string): string {
  return WORDS[status] ?? status;
}

export function StatusBadge({ status }: { status: string }) {
  return <Badge tone={TONES[status]}>{statusWord(status)}</Badge>;
}

/** A page number past the last page (an old link, a hand-edited URL): say so, and link to the first page. */
export function PastTheEnd({ total, what }: { total: number; what: string }) {
  const [params] = useSearchParams();
  const first = new URLSearchParams(params);
  first.delete("page");
  return (
    <p className="console-muted" role="status">
      {`This page is past the last one (${total} ${what} in all). `}
      <Link to={`?${first}`}>Go to the first page</Link>
    </p>
  );
}

/** The page number in a URL (1 when missing or nonsense). */
export function pageOf(url: URL): number {
  return Math.min(Math.max(1, Math.floor(Number(url.searchParams.get("page")) || 1)), 10_000);
}

/** The outbox's email templates in the merchant's words. */
export const TEMPLATE_LABELS: Record<string, string> = {
  "order-confirmation": "Order confirmation",
  "abandoned-cart": "Abandoned cart",
  "back-in-stock": "Back in stock",
  "verification-code": "Verification code",
  "recovery-link": "Password reset",
  "activation-link": "Account activation",
  "order-refund": "Refund",
  "order-shipped": "Shipping confirmation",
  "order-canceled": "Order canceled",
};

export function templateLabel(template: string): string {
  return TEMPLATE_LABELS[template] ?? template;
}
