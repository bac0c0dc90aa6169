import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { sendEmail, type EmailTransport } from "#worker/email/send";
import { renderEmail } from "#worker/email/templates";
import { serviceCtx, unique } from "../helpers";

/** The shop's emails: what a reader sees (HTML and plain text), and the D1 record of each message. */

const shop = { storeName: "Fernhill Goods", origin: "https://shop.test" };

/** A service context for an anonymous caller, with env overrides (e.g. a fake transport). */
const testCtx = (overrides: Record<string, unknown> = {}) => serviceCtx({ kind: "anonymous" }, overrides);

async function emailRow(id: string) {
  return env.DB.prepare("SELECT * FROM emails WHERE id = ?").bind(id).first<{
    to: string;
    template: string;
    subject: string;
    html: string;
    text: string;
    status: string;
    error: string | null;
    sent_date: string | null;
  }>();
}

/** A transport that records what it was asked to send (or fails, when told to). */
function fakeTransport(fail?: string) {
  const sent: Parameters<EmailTransport["send"]>[0][] = [];
  const transport: EmailTransport = {
    async send(message) {
      if (fail) throw new Error(fail);
      sent.push(message);
      return { messageId: `<${unique()}@shop.test>` };
    },
  };
  return { transport, sent };
}

describe("email templates", () => {
  it("verification code: the code in the subject, the HTML and the text", () => {
    const m = renderEmail("verification-code", { code: "482913", name: "Ada" }, shop);
    expect(m.subject).toBe("Your Fernhill Goods verification code: 482913");
    expect(m.html).toMatch(/^<!DOCTYPE html><html lang="en">/);
    expect(m.html).toContain("<title>Confirm your email</title>");
    expect(m.html).toContain(">482913</p>");
    expect(m.html).toContain("Hi Ada,");
    expect(m.html).toContain("15 minutes");
    expect(m.text).toContain("Hi Ada,");
    expect(m.text).toContain("    482913");
    expect(m.text).toContain("Fernhill Goods · https://shop.test");
    expect(m.text).not.toMatch(/<[a-z]/i);
  });

  it("recovery link: the link as a button and written out, and in the text", () => {
    const url = "https://shop.test/reset-password?token=abc-DEF_123&mode=1";
    const m = renderEmail("recovery-link", { url }, shop);
    expect(m.subject).toBe("Reset your Fernhill Goods password");
    const escaped = url.replace(/&/g, "&amp;");
    expect(m.html).toContain(`href="${escaped}"`);
    expect(m.html).toContain(">Choose a new password</a>");
    expect(m.html.split(`href="${escaped}"`)).toHaveLength(3);
    expect(m.html).toContain("Hi,");
    expect(m.html).toContain("1 hour");
    expect(m.text).toContain(url);
    expect(m.text).toContain("1 hour");
  });

  it("activation link: the link and its 7-day expiry in both parts", () => {
    const url = "https://shop.test/reset-password?token=t0k3n&activation=1";
    const m = renderEmail("activation-link", { url, name: "Grace" }, shop);
    expect(m.subject).toBe("Activate your Fernhill Goods account");
    expect(m.html).toContain(`href="${url.replace(/&/g, "&amp;")}"`);
    expect(m.html).toContain("Activate your account and set a password</a>");
    expect(m.html).toContain("7 days");
    expect(m.text).toContain(url);
    expect(m.text).toContain("Hi Grace,");
    expect(m.text).toContain("7 days");
  });

  it("escapes names, store names and links in the HTML, and leaves the text as written", () => {
    const name = `<img src=x onerror="alert(1)"> & Bob's`;
    const m = renderEmail(
      "recovery-link",
      { url: `https://shop.test/r?a=1&b="><script>x</script>`, name },
      { storeName: "A&B <Shop>", origin: "https://shop.test" },
    );
    expect(m.html).not.toContain("<img");
    expect(m.html).not.toContain("<script>");
    expect(m.html).toContain("Hi &lt;img src=x onerror=&quot;alert(1)&quot;&gt; &amp; Bob&#x27;s,");
    expect(m.html).toContain("A&amp;B &lt;Shop&gt;");
    expect(m.html).toContain('href="https://shop.test/r?a=1&amp;b=&quot;&gt;&lt;script&gt;x&lt;/script&gt;"');
    expect(m.text).toContain(`Hi ${name},`);
    expect(m.subject).toBe("Reset your A&B <Shop> password");
  });

  it("keeps subjects on one line", () => {
    const m = renderEmail(
      "activation-link",
      { url: "https://shop.test/a" },
      { storeName: "Evil\r\nBcc: victim@example.com", origin: "https://shop.test" },
    );
    expect(m.subject).not.toMatch(/[\r\n]/);
  });
});

describe("sending (the emails table is the record of every message)", () => {
  it("records the message as QUEUED when no transport is configured", async () => {
    const { ctx, settled } = testCtx({ SEND_EMAIL: undefined, EMAIL_FROM: "" });
    const to = `ada-${unique()}@example.com`;
    const { id } = await sendEmail(ctx, to, "verification-code", { code: "123456" });
    await settled();
    const row = await emailRow(id);
    expect(row).toMatchObject({ to, template: "verification-code", status: "QUEUED", error: null, sent_date: null });
    expect(row!.subject).toContain("123456");
    expect(row!.html).toContain(">123456</p>");
    expect(row!.text).toContain("123456");
  });

  it("leaves it QUEUED when the binding exists but EMAIL_FROM is empty (sending off)", async () => {
    const fake = fakeTransport();
    const { ctx, settled } = testCtx({ SEND_EMAIL: fake.transport, EMAIL_FROM: "" });
    const { id } = await sendEmail(ctx, `x-${unique()}@example.com`, "verification-code", { code: "654321" });
    await settled();
    expect(fake.sent).toHaveLength(0);
    expect((await emailRow(id))!.status).toBe("QUEUED");
  });

  it("hands the message to the transport and marks it SENT", async () => {
    const fake = fakeTransport();
    const { ctx, settled } = testCtx({ SEND_EMAIL: fake.transport, EMAIL_FROM: "shop@shop.test", STORE_NAME: "Fernhill Goods" });
    const to = `grace-${unique()}@example.com`;
    const url = `https://shop.test/reset-password?token=${unique()}`;
    const { id } = await sendEmail(ctx, to, "recovery-link", { url, name: "Grace" });
    await settled();
    expect(fake.sent).toHaveLength(1);
    const [message] = fake.sent;
    expect(message.from).toEqual({ email: "shop@shop.test", name: "Fernhill Goods" });
    expect(message.to).toBe(to);
    expect(message.subject).toBe("Reset your Fernhill Goods password");
    expect(message.html).toContain(`href="${url}"`);
    expect(message.text).toContain(url);
    const row = await emailRow(id);
    expect(row!.status).toBe("SENT");
    expect(row!.sent_date).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(row!.html).toBe(message.html);
  });

  it("marks it FAILED with the transport's error", async () => {
    const fake = fakeTransport("destination address not verified");
    const { ctx, settled } = testCtx({ SEND_EMAIL: fake.transport, EMAIL_FROM: "shop@shop.test" });
    const { id } = await sendEmail(ctx, `z-${unique()}@example.com`, "activation-link", { url: "https://shop.test/a" });
    await settled();
    const row = await emailRow(id);
    expect(row!.status).toBe("FAILED");
    expect(row!.error).toBe("destination address not verified");
    expect(row!.sent_date).toBeNull();
  });

  it("sends through the real send_email binding of wrangler.toml (local simulation)", async () => {
    expect(env.SEND_EMAIL).toBeDefined();
    const { ctx, settled } = testCtx({ EMAIL_FROM: "shop@shop.test" });
    const { id } = await sendEmail(ctx, `real-${unique()}@example.com`, "verification-code", { code: "777777" });
    await settled();
    const row = await emailRow(id);
    expect(row!.error).toBeNull();
    expect(row!.status).toBe("SENT");
  });
});
