import { eq, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { nowIso, type Ctx } from "#worker/platform/context";
import type { Db } from "#worker/platform/db";
import { newId } from "#worker/platform/ids";
import { publicOrigin } from "#worker/platform/public-origin";
import { defaultStoreSettings, emailSender, shopSettings, type StoreSettings } from "#worker/store";
import { emails, emailSubscriptions } from "./tables";
import { renderEmail, type EmailData, type EmailTemplate, type RenderedEmail } from "./templates";
import { config } from "#worker/platform/config";
import { now as clockNow, nowMs } from "#worker/platform/clock";

/** The part of the `send_email` binding this module uses: the structured message (Cloudflare Email Service). */
export interface EmailTransport {
  send(message: {
    from: string | { email: string; name: string };
    to: string;
    subject: string;
    html: string;
    text: string;
    headers?: Record<string, string>;
  }): Promise<unknown>;
}

/**
 * The transport, when sending is configured: the SEND_EMAIL binding and an EMAIL_FROM address. Without either, the
 * message is only recorded (status QUEUED), which is how it works locally. The From: is the store's sender (name and
 * address from the store settings, worker/store/settings.ts), falling back to the store's name and EMAIL_FROM.
 */
export function transportOf(env: Env, shop?: StoreSettings): { transport: EmailTransport; from: { email: string; name: string } } | null {
  const transport: EmailTransport | undefined = env.SEND_EMAIL;
  if (!transport || !config(env).emailFrom) return null;
  const sender = emailSender(env, shop ?? defaultStoreSettings(env))!;
  return { transport, from: sender };
}

export type EmailStatus = "QUEUED" | "SENT" | "FAILED" | "SUPPRESSED";

/** Hand-overs to the transport before a message stays FAILED for good (the retry sweep makes the later ones). */
export const MAX_EMAIL_ATTEMPTS = 5;

/** How long a hand-over in flight holds its message before the retry sweep may try again (the Worker may have stopped). */
export const EMAIL_LEASE_MS = 10 * 60_000;

/** After failed attempt n: 5 min, 15 min, 45 min, 2 h 15 min; then no more. */
function retryAt(attempts: number, now: Date): string | null {
  return attempts < MAX_EMAIL_ATTEMPTS ? new Date(now.getTime() + 5 * 60_000 * 3 ** (attempts - 1)).toISOString() : null;
}

/** The row's columns once a hand-over (number `attempts`) succeeded or failed (err null: it succeeded). */
export function outcomeColumns(attempts: number, err: unknown, now = clockNow()) {
  return err === null
    ? { status: "SENT" as const, sentDate: now.toISOString(), error: null, nextAttemptAt: null }
    : { status: "FAILED" as const, error: errorText(err), nextAttemptAt: retryAt(attempts, now) };
}

/** The columns of a new row: a first hand-over in flight when a transport is configured, else none. */
function firstAttemptColumns(configured: boolean) {
  return configured ? { attempts: 1, nextAttemptAt: new Date(nowMs() + EMAIL_LEASE_MS).toISOString() } : { attempts: 0, nextAttemptAt: null };
}

export interface SendOptions {
  /**
   * Sends at most once per key: a second call with the same key (a redelivered event, a second sweep) records and
   * sends nothing and answers the first message (`duplicate: true`).
   */
  idempotencyKey?: string;
  /**
   * A marketing email (abandoned-cart recovery, back in stock): it carries an unsubscribe link (the template's
   * `unsubscribeUrl`) and the `List-Unsubscribe` / `List-Unsubscribe-Post` headers (one-click, RFC 8058), and an
   * address that unsubscribed is never sent to (the message is recorded as SUPPRESSED).
   */
  marketing?: boolean;
  /** Wait for the transport before returning (the caller records the outcome), instead of after the response. */
  awaitDelivery?: boolean;
}

export interface SendResult {
  id: string;
  status: EmailStatus;
  /** True when this key was already used: nothing was sent this time. */
  duplicate: boolean;
  error?: string | null;
  /** Not delivered yet, and the retry sweep will hand it over again (a FAILED or interrupted hand-over). */
  retrying: boolean;
}

/** What became of recorded emails (the callers that wait for a retried one): status, last error, whether a retry is due. */
export async function emailOutcomes(
  db: Db,
  ids: string[],
): Promise<Map<string, { to: string; status: EmailStatus; error: string | null; retrying: boolean }>> {
  if (!ids.length) return new Map();
  const rows = await db
    .select({ id: emails.id, to: emails.to, status: emails.status, error: emails.error, nextAttemptAt: emails.nextAttemptAt })
    .from(emails)
    .where(sql`${emails.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`);
  return new Map(rows.map((r) => [r.id, { to: r.to, status: r.status, error: r.error, retrying: isRetrying(r) }]));
}

function isRetrying(r: { status: EmailStatus; nextAttemptAt: string | null }): boolean {
  return (r.status === "QUEUED" || r.status === "FAILED") && r.nextAttemptAt !== null;
}

/**
 * Sends a templated email: records it in the `emails` table (the record of every message, and locally the mailbox
 * a person or a test reads), then hands it to the `send_email` binding when one is configured, after the response
 * (or before returning, with `awaitDelivery`); the row ends SENT, or FAILED with the transport's error, and a failed
 * (or interrupted) hand-over is tried again by the retry sweep (retries.ts).
 */
export async function sendEmail<T extends EmailTemplate>(
  ctx: Ctx,
  to: string,
  template: T,
  data: EmailData[T],
  opts: SendOptions = {},
): Promise<SendResult> {
  if (opts.idempotencyKey) {
    const earlier = await earlierSend(ctx.db, opts.idempotencyKey);
    if (earlier) return earlier;
  }
  const id = newId();
  // The store's name and sender, from the KV copy of its settings (no D1 round trip).
  const shop = await shopSettings(ctx);
  const storeName = shop.name;
  let headers: Record<string, string> | null = null;
  let content = data;
  let suppressed = false;
  if (opts.marketing) {
    const subscription = await subscriptionOf(ctx, to);
    const unsubscribeUrl = `${publicOrigin(ctx)}/email/unsubscribe?token=${subscription.token}`;
    suppressed = subscription.unsubscribedDate !== null;
    content = { ...data, unsubscribeUrl };
    headers = { "List-Unsubscribe": `<${unsubscribeUrl}>`, "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" };
  }
  const rendered = renderEmail(template, content, { storeName, origin: publicOrigin(ctx) });
  const status: EmailStatus = suppressed ? "SUPPRESSED" : "QUEUED";
  const configured = transportOf(ctx.env, shop);
  // The unique key makes the record the lock: of two concurrent sends with one key, only one row (and one send) wins.
  const inserted = await ctx.db
    .insert(emails)
    .values({
      id,
      to,
      template,
      subject: rendered.subject,
      html: rendered.html,
      text: rendered.text,
      status,
      createdDate: nowIso(),
      idempotencyKey: opts.idempotencyKey ?? null,
      headers,
      ...firstAttemptColumns(!!configured && !suppressed),
    })
    .onConflictDoNothing()
    .returning({ id: emails.id });
  if (!inserted.length) return (await earlierSend(ctx.db, opts.idempotencyKey!))!;
  if (suppressed || !configured) return { id, status, duplicate: false, retrying: false };
  const delivery = deliver(configured.transport, configured.from, to, rendered, headers)
    .then(() => null)
    .catch((err: unknown) => err ?? new Error("send failed"))
    .then(async (err) => {
      const outcome = outcomeColumns(1, err);
      await ctx.db.update(emails).set(outcome).where(eq(emails.id, id));
      return { id, status: outcome.status, duplicate: false, error: outcome.error, retrying: outcome.nextAttemptAt !== null };
    });
  if (opts.awaitDelivery) return delivery;
  ctx.waitUntil(delivery);
  return { id, status, duplicate: false, retrying: false };
}

/** The message an idempotency key already made, as a duplicate send's result. */
async function earlierSend(db: Db, key: string): Promise<SendResult | null> {
  const [earlier] = await db
    .select({ id: emails.id, status: emails.status, error: emails.error, nextAttemptAt: emails.nextAttemptAt })
    .from(emails)
    .where(eq(emails.idempotencyKey, key));
  return earlier ? { id: earlier.id, status: earlier.status, error: earlier.error, duplicate: true, retrying: isRetrying(earlier) } : null;
}

/** The address's subscription row (created with a new unsubscribe token on its first marketing email). */
async function subscriptionOf(ctx: Ctx, to: string) {
  const email = to.trim().toLowerCase();
  const token = randomToken();
  await ctx.db.insert(emailSubscriptions).values({ email, token, unsubscribedDate: null, createdDate: nowIso() }).onConflictDoNothing();
  const [row] = await ctx.db.select().from(emailSubscriptions).where(eq(emailSubscriptions.email, email));
  return row;
}

/** Whether an address unsubscribed from marketing emails. */
export async function isUnsubscribed(ctx: Ctx, to: string): Promise<boolean> {
  const [row] = await ctx.db
    .select({ unsubscribedDate: emailSubscriptions.unsubscribedDate })
    .from(emailSubscriptions)
    .where(eq(emailSubscriptions.email, to.trim().toLowerCase()));
  return !!row?.unsubscribedDate;
}

/** The address an unsubscribe token belongs to, and whether it already unsubscribed; null for an unknown token. */
export async function findSubscription(ctx: Ctx, token: string): Promise<{ email: string; unsubscribed: boolean } | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
  const [row] = await ctx.db.select().from(emailSubscriptions).where(eq(emailSubscriptions.token, token));
  return row ? { email: row.email, unsubscribed: row.unsubscribedDate !== null } : null;
}

/** Unsubscribes the token's address from marketing emails (idempotent: the first date stays). Null for an unknown token. */
export async function unsubscribe(ctx: Ctx, token: string): Promise<{ email: string } | null> {
  if (!/^[A-Za-z0-9_-]{16,128}$/.test(token)) return null;
  const [row] = await ctx.db
    .update(emailSubscriptions)
    .set({ unsubscribedDate: sql`coalesce(${emailSubscriptions.unsubscribedDate}, ${nowIso()})` })
    .where(eq(emailSubscriptions.token, token))
    .returning({ email: emailSubscriptions.email });
  return row ?? null;
}

function randomToken(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function deliver(
  transport: EmailTransport,
  from: { email: string; name: string },
  to: string,
  m: RenderedEmail,
  headers: Record<string, string> | null,
) {
  // Async, so a transport that throws at once fails like one that rejects (recorded FAILED, retried).
  // The structured form: the binding builds the MIME message (encodings, line lengths, headers) itself.
  return transport.send({ from, to, subject: m.subject, html: m.html, text: m.text, ...(headers ? { headers } : {}) });
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 500);
}

// ---------------------------------------------------------------------------------------------------------------
// The email row as a statement of someone else's batch

/**
 * A stand-in for a value the caller's batch assigns (e.g. the order number, from the same batch): rendered into
 * the message as this token and replaced in SQL when the row is written, so the email is recorded in the batch that
 * makes the thing it confirms (one round trip, and no order without its confirmation row).
 */
export interface EmailPlaceholder {
  token: string;
  /** A scalar SQL expression for the value, evaluated inside the batch. */
  value: SQL;
}

/**
 * For a transactional email recorded in the caller's batch: the insert (keyed, like sendEmail with
 * `idempotencyKey`: a second statement with the same key records nothing), and `deliver(result, values)` to call
 * once the batch committed, with the insert's result and the placeholders' values: when the insert wrote the row, it
 * hands the message to the transport after the response, when one is configured (as sendEmail does). Marketing
 * emails are not built this way (they need the subscription read first).
 */
export function emailStatement<T extends EmailTemplate>(
  ctx: Ctx,
  to: string,
  template: T,
  data: EmailData[T],
  opts: { idempotencyKey: string; placeholder?: EmailPlaceholder; shop?: StoreSettings },
): { statement: BatchItem<"sqlite">; deliver: (result: unknown, values?: Record<string, string>) => void } {
  const id = newId();
  // The caller reads the store's settings beforehand (shopSettings), as this builds a statement synchronously.
  const shop = opts.shop ?? defaultStoreSettings(ctx.env);
  const storeName = shop.name;
  const rendered = renderEmail(template, data, { storeName, origin: publicOrigin(ctx) });
  const p = opts.placeholder;
  const filled = (s: string) => (p ? sql`replace(${s}, ${p.token}, ${p.value})` : sql`${s}`);
  const statement = ctx.db
    .insert(emails)
    .values({
      id,
      to,
      template,
      subject: filled(rendered.subject) as unknown as string,
      html: filled(rendered.html) as unknown as string,
      text: filled(rendered.text) as unknown as string,
      status: "QUEUED",
      createdDate: nowIso(),
      idempotencyKey: opts.idempotencyKey,
      headers: null,
      ...firstAttemptColumns(!!transportOf(ctx.env)),
    })
    .onConflictDoNothing();
  const deliver = (result: unknown, values: Record<string, string> = {}) => {
    const configured = transportOf(ctx.env, shop);
    // A repeated key wrote nothing, and so sends nothing.
    if (!configured || !(result as D1Result | undefined)?.meta?.changes) return;
    const put = (s: string) => (p && values[p.token] !== undefined ? s.split(p.token).join(values[p.token]) : s);
    const message = { subject: put(rendered.subject), html: put(rendered.html), text: put(rendered.text) };
    ctx.waitUntil(deliverRecorded(ctx, configured, to, message, id));
  };
  return { statement, deliver };
}

/** Hands a recorded message to the transport and records the outcome on its row (SENT, or FAILED with the error). */
async function deliverRecorded(
  ctx: Ctx,
  configured: { transport: EmailTransport; from: { email: string; name: string } },
  to: string,
  m: RenderedEmail,
  id: string,
) {
  let failure: unknown = null;
  try {
    await deliver(configured.transport, configured.from, to, m, null);
  } catch (err) {
    failure = err ?? new Error("send failed");
  }
  await ctx.db.update(emails).set(outcomeColumns(1, failure)).where(eq(emails.id, id));
}
