import { eq } from "drizzle-orm";
import { nowIso, type Ctx } from "../platform/context";
import { newId } from "../platform/ids";
import { emails } from "./tables";
import { renderEmail, type EmailData, type EmailTemplate } from "./templates";

/**
 * Sends a templated email: records it in the `emails` table (the record of every message, and locally the mailbox
 * a person or a test reads), then hands it to the `send_email` binding when one is configured, after the response.
 */
export async function sendEmail<T extends EmailTemplate>(ctx: Ctx, to: string, template: T, data: EmailData[T]): Promise<{ id: string }> {
  const id = newId();
  const rendered = renderEmail(template, data, { storeName: ctx.env.STORE_NAME || "Edge Storefront", origin: ctx.origin });
  await ctx.db.insert(emails).values({ id, to, template, subject: rendered.subject, html: rendered.html, text: rendered.text, status: "QUEUED", createdDate: nowIso() });
  const transport = (ctx.env as { SEND_EMAIL?: SendEmail }).SEND_EMAIL;
  const from = (ctx.env as { EMAIL_FROM?: string }).EMAIL_FROM;
  if (transport && from) {
    ctx.waitUntil(
      deliver(transport, from, to, rendered)
        .then(() => ctx.db.update(emails).set({ status: "SENT", sentDate: nowIso() }).where(eq(emails.id, id)))
        .catch((err) => ctx.db.update(emails).set({ status: "FAILED", error: String(err).slice(0, 500) }).where(eq(emails.id, id))),
    );
  }
  return { id };
}

async function deliver(transport: SendEmail, from: string, to: string, m: { subject: string; html: string; text: string }) {
  // A minimal MIME message with text and HTML alternatives (the send_email binding takes raw MIME).
  const boundary = `b${newId().replace(/-/g, "")}`;
  const raw = [
    `From: ${from}`,
    `To: ${to}`,
    `Subject: ${m.subject}`,
    `Message-ID: <${newId()}@${from.split("@")[1] ?? "localhost"}>`,
    "MIME-Version: 1.0",
    `Content-Type: multipart/alternative; boundary="${boundary}"`,
    "",
    `--${boundary}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    m.text,
    `--${boundary}`,
    "Content-Type: text/html; charset=utf-8",
    "",
    m.html,
    `--${boundary}--`,
  ].join("\r\n");
  const { EmailMessage } = await import("cloudflare:email");
  await transport.send(new EmailMessage(from, to, raw));
}
