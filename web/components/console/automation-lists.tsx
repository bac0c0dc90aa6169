import { Link, useSearchParams } from "react-router";
import { Badge, type Tone } from "./badge";

/**
 * Pieces of the automations section's lists (emails, back in stock, tasks): dates as merchants read them, status
 * badges, and what a page past the last one says (the page links are ./pager).
 */

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
};

export function templateLabel(template: string): string {
  return TEMPLATE_LABELS[template] ?? template;
}
