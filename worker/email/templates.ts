/** Email templates: subject, HTML and plain text for each kind of message the shop sends. */

export interface EmailData {
  "verification-code": { code: string; name?: string };
  "recovery-link": { url: string; name?: string };
  "activation-link": { url: string; name?: string };
}

export type EmailTemplate = keyof EmailData;

interface Shop {
  storeName: string;
  origin: string;
}

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

function layout(shop: Shop, title: string, bodyHtml: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title></head><body style="font-family:system-ui,sans-serif;color:#1c1c1e;background:#fbfaf7;padding:24px"><div style="max-width:480px;margin:auto;background:#fff;border:1px solid #e4e2dc;border-radius:12px;padding:24px"><h1 style="font-size:20px">${escape(title)}</h1>${bodyHtml}<p style="color:#5b5f66;font-size:13px">${escape(shop.storeName)} · <a href="${escape(shop.origin)}">${escape(shop.origin)}</a></p></div></body></html>`;
}

export function renderEmail<T extends EmailTemplate>(template: T, data: EmailData[T], shop: Shop): { subject: string; html: string; text: string } {
  const hello = data.name ? `Hi ${data.name},` : "Hi,";
  switch (template) {
    case "verification-code": {
      const { code } = data as EmailData["verification-code"];
      const subject = `Your ${shop.storeName} verification code: ${code}`;
      return {
        subject,
        html: layout(shop, "Confirm your email", `<p>${escape(hello)}</p><p>Your verification code is</p><p style="font-size:28px;font-weight:700;letter-spacing:4px">${escape(code)}</p><p>It expires in 15 minutes. If you did not ask for it, ignore this email.</p>`),
        text: `${hello}\n\nYour verification code is ${code}\n\nIt expires in 15 minutes. If you did not ask for it, ignore this email.\n\n${shop.storeName} · ${shop.origin}`,
      };
    }
    case "recovery-link": {
      const { url } = data as EmailData["recovery-link"];
      const subject = `Reset your ${shop.storeName} password`;
      return {
        subject,
        html: layout(shop, "Reset your password", `<p>${escape(hello)}</p><p><a href="${escape(url)}">Choose a new password</a></p><p>The link works once and expires in 1 hour. If you did not ask for it, ignore this email.</p>`),
        text: `${hello}\n\nChoose a new password: ${url}\n\nThe link works once and expires in 1 hour. If you did not ask for it, ignore this email.\n\n${shop.storeName} · ${shop.origin}`,
      };
    }
    case "activation-link": {
      const { url } = data as EmailData["activation-link"];
      const subject = `Activate your ${shop.storeName} account`;
      return {
        subject,
        html: layout(shop, "Activate your account", `<p>${escape(hello)}</p><p><a href="${escape(url)}">Activate your account and set a password</a></p><p>The link works once and expires in 7 days.</p>`),
        text: `${hello}\n\nActivate your account and set a password: ${url}\n\nThe link works once and expires in 7 days.\n\n${shop.storeName} · ${shop.origin}`,
      };
    }
  }
  throw new Error(`unknown email template ${template}`);
}
