import { eq } from "drizzle-orm";
import { nowIso, type Ctx } from "../platform/context";
import { newId } from "../platform/ids";
import { emails } from "./tables";
import { renderEmail, type EmailData, type EmailTemplate, type RenderedEmail } from "./templates";

/** The part of the `send_email` binding this module uses: the structured message (Cloudflare Email Service). */
export interface EmailTransport {
  send(message: { from: string | { email: string; name: string }; to: string; subject: string; html: string; text: string }): Promise<unknown>;
}

/**
 * The transport, when sending is configured: the SEND_EMAIL binding and an EMAIL_FROM address. Without either, the
 * message is only recorded (status QUEUED), which is how it works locally.
 */
function transportOf(env: Env): { transport: EmailTransport; from: string } | null {
  const { SEND_EMAIL: transport, EMAIL_FROM: from } = env as { SEND_EMAIL?: EmailTransport; EMAIL_FROM?: string };
  return transport && from?.trim() ? { transport, from: from.trim() } : null;
}

/**
 * Sends a templated email: records it in the `emails` table (the record of every message, and locally the mailbox
 * a person or a test reads), then hands it to the `send_email` binding when one is configured, after the response;
 * the row ends SENT, or FAILED with the transport's error.
 */
export async function sendEmail<T extends EmailTemplate>(ctx: Ctx, to: string, template: T, data: EmailData[T]): Promise<{ id: string }> {
  const id = newId();
  const storeName = ctx.env.STORE_NAME || "Edge Storefront";
  const rendered = renderEmail(template, data, { storeName, origin: ctx.origin });
  await ctx.db.insert(emails).values({ id, to, template, subject: rendered.subject, html: rendered.html, text: rendered.text, status: "QUEUED", createdDate: nowIso() });
  const configured = transportOf(ctx.env);
  if (configured) {
    ctx.waitUntil(
      deliver(configured.transport, { email: configured.from, name: storeName }, to, rendered)
        .then(() => ctx.db.update(emails).set({ status: "SENT", sentDate: nowIso(), error: null }).where(eq(emails.id, id)))
        .catch((err) => ctx.db.update(emails).set({ status: "FAILED", error: errorText(err) }).where(eq(emails.id, id))),
    );
  }
  return { id };
}

function deliver(transport: EmailTransport, from: { email: string; name: string }, to: string, m: RenderedEmail) {
  // The structured form: the binding builds the MIME message (encodings, line lengths, headers) itself.
  return transport.send({ from, to, subject: m.subject, html: m.html, text: m.text });
}

function errorText(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).slice(0, 500);
}
