import { and, count, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { requireMerchant, type Ctx } from "#worker/platform/context";
import { notFound } from "#worker/platform/errors";
import type { EmailStatus } from "./send";
import { emails } from "./tables";
import type { EmailTemplate } from "./templates";
import { runBatch } from "#worker/platform/unit-of-work";

/**
 * The outbox as the merchant reads it (staff only): every email the shop sent or tried, newest first, and one
 * message with its HTML and text as the shopper got them. One-time secrets are hidden from staff (see `redact`).
 */

export const EMAIL_STATUSES = ["QUEUED", "SENT", "FAILED", "SUPPRESSED"] as const satisfies readonly EmailStatus[];

export const EMAIL_TEMPLATES = [
  "order-confirmation",
  "abandoned-cart",
  "back-in-stock",
  "verification-code",
  "recovery-link",
  "activation-link",
  "order-refund",
  "digital-delivery",
  "order-shipped",
  "order-canceled",
] as const satisfies readonly EmailTemplate[];

export interface EmailListFilters {
  status?: EmailStatus;
  template?: EmailTemplate;
  /** Part of the recipient's address (case-insensitive). */
  recipient?: string;
  /** Whole UTC days (YYYY-MM-DD), both included. */
  from?: string;
  to?: string;
  limit: number;
  offset: number;
}

export interface EmailSummary {
  id: string;
  to: string;
  template: string;
  subject: string;
  status: EmailStatus;
  attempts: number;
  error: string | null;
  createdDate: string;
  sentDate: string | null;
  /** The retry sweep will hand it over again (a FAILED or interrupted hand-over with attempts left). */
  nextAttemptAt: string | null;
}

export interface EmailDetail extends EmailSummary {
  html: string;
  text: string;
  /** Whether a one-time code or sign-in link was hidden from this view. */
  redacted: boolean;
}

const summaryColumns = {
  id: emails.id,
  to: emails.to,
  template: emails.template,
  subject: emails.subject,
  status: emails.status,
  attempts: emails.attempts,
  error: emails.error,
  createdDate: emails.createdDate,
  sentDate: emails.sentDate,
  nextAttemptAt: emails.nextAttemptAt,
};

function filterOf(f: EmailListFilters): SQL | undefined {
  const day = 86_400_000;
  return and(
    f.status ? eq(emails.status, f.status) : undefined,
    f.template ? eq(emails.template, f.template) : undefined,
    f.recipient ? sql`instr(lower(${emails.to}), ${f.recipient.toLowerCase()}) > 0` : undefined,
    f.from ? gte(emails.createdDate, `${f.from}T00:00:00.000Z`) : undefined,
    f.to ? lt(emails.createdDate, new Date(Date.parse(`${f.to}T00:00:00Z`) + day).toISOString()) : undefined,
  );
}

/** One page of the outbox for the filters, and how many match: one batch (one D1 round trip). */
export async function listEmails(ctx: Ctx, f: EmailListFilters): Promise<{ emails: EmailSummary[]; total: number }> {
  requireMerchant(ctx);
  const where = filterOf(f);
  const [rows, [{ total }]] = await runBatch(ctx.db, [
    ctx.db.select(summaryColumns).from(emails).where(where).orderBy(desc(emails.createdDate), desc(emails.id)).limit(f.limit).offset(f.offset),
    ctx.db.select({ total: count() }).from(emails).where(where),
  ]);
  return { emails: rows.map((r) => ({ ...r, subject: redact(r.template, r.subject, r.subject).text })), total };
}

/** One email with its HTML and text (secrets hidden). 404 EMAIL_NOT_FOUND. */
export async function getEmail(ctx: Ctx, id: string): Promise<{ email: EmailDetail }> {
  requireMerchant(ctx);
  const [row] = await ctx.db
    .select({ ...summaryColumns, html: emails.html, text: emails.text })
    .from(emails)
    .where(eq(emails.id, id));
  if (!row) throw notFound("EMAIL_NOT_FOUND", "Email", id);
  const subject = redact(row.template, row.subject, row.subject);
  const html = redact(row.template, row.subject, row.html);
  const text = redact(row.template, row.subject, row.text);
  return { email: { ...row, subject: subject.text, html: html.text, text: text.text, redacted: subject.hidden || html.hidden || text.hidden } };
}

/** What a hidden secret reads as in the console. */
export const HIDDEN = "[hidden]";

/**
 * Hides what only the recipient may use: a member's verification code, and the token of a password-reset,
 * activation or unsubscribe link. Staff can read the outbox with no permission at all, so showing these would let
 * anyone with a console account take over the account whose reset link they read (the owner's included).
 * `subject` is the stored subject, where the verification template puts its code.
 */
export function redact(template: string, subject: string, content: string): { text: string; hidden: boolean } {
  let out = content;
  if (template === "verification-code") {
    const code = /:\s*(\S+)\s*$/.exec(subject)?.[1];
    if (code) out = out.split(code).join(HIDDEN);
  }
  // A link's one-time token, in HTML (&amp;-escaped) and in text alike: ?token=… or &token=…
  out = out.replace(/([?&;]token=)[^&"'\s<>]+/g, `$1${HIDDEN}`);
  return { text: out, hidden: out !== content };
}
