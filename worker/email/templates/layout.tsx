import type { ReactNode } from "react";

/** The shop an email comes from: its name (header and footer) and origin (the footer link). */
export interface Shop {
  storeName: string;
  origin: string;
}

// Inline styles only: most mail clients drop <style> blocks. Colours meet WCAG AA contrast on white.
const ink = "#1c1c1e";
const muted = "#4f535a";
const accent = "#1f3a5f";
const font = "system-ui,-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif";

/**
 * The frame of every email: a single centred column in a presentation table (the layout mail clients render
 * reliably), with the store's name above and its address below. React escapes every value put into it.
 */
export function EmailLayout({ shop, title, children }: { shop: Shop; title: string; children: ReactNode }) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light" />
        <title>{title}</title>
      </head>
      <body style={{ margin: 0, padding: 0, background: "#f4f2ee", color: ink, fontFamily: font }}>
        <table role="presentation" width="100%" cellPadding={0} cellSpacing={0} style={{ background: "#f4f2ee" }}>
          <tbody>
            <tr>
              <td align="center" style={{ padding: "24px 12px" }}>
                <table
                  role="presentation"
                  width="100%"
                  cellPadding={0}
                  cellSpacing={0}
                  style={{ maxWidth: 520, background: "#ffffff", border: "1px solid #dedbd3", borderRadius: 12 }}
                >
                  <tbody>
                    <tr>
                      <td style={{ padding: "24px 28px 0", fontSize: 14, fontWeight: 600, color: muted }}>{shop.storeName}</td>
                    </tr>
                    <tr>
                      <td style={{ padding: "8px 28px 24px", fontSize: 16, lineHeight: 1.5 }}>
                        <h1 style={{ fontSize: 22, lineHeight: 1.3, margin: "0 0 16px", color: ink }}>{title}</h1>
                        {children}
                      </td>
                    </tr>
                  </tbody>
                </table>
                <p style={{ maxWidth: 520, margin: "16px auto 0", fontSize: 13, lineHeight: 1.5, color: muted }}>
                  {shop.storeName} ·{" "}
                  <a href={shop.origin} style={{ color: accent }}>
                    {shop.origin.replace(/^https?:\/\//, "")}
                  </a>
                </p>
              </td>
            </tr>
          </tbody>
        </table>
      </body>
    </html>
  );
}

/** The items of an order as a list ("2 × Tee"). */
export function ItemList({ lines }: { lines: { name: string; quantity: number }[] }) {
  return (
    <ul style={{ margin: "0 0 16px", paddingLeft: 20 }}>
      {lines.map((l, i) => (
        <li key={i}>
          {l.quantity} × {l.name}
        </li>
      ))}
    </ul>
  );
}

/** The items of an order as plain-text lines. */
export const itemLines = (lines: { name: string; quantity: number }[]) => lines.map((l) => `${l.quantity} × ${l.name}`).join("\n");

export function Paragraph({ children }: { children: ReactNode }) {
  return <p style={{ margin: "0 0 16px" }}>{children}</p>;
}

/** "Hi Ada," or "Hi," without a name. */
export function Greeting({ name }: { name?: string }) {
  return <Paragraph>{greeting(name)}</Paragraph>;
}

export function greeting(name?: string): string {
  const trimmed = name?.trim();
  return trimmed ? `Hi ${trimmed},` : "Hi,";
}

/** The one thing the reader should do: a large link that reads well on its own (no "click here"). */
export function ActionLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <p style={{ margin: "24px 0" }}>
      <a
        href={href}
        style={{
          display: "inline-block",
          background: accent,
          color: "#ffffff",
          padding: "12px 20px",
          borderRadius: 8,
          fontWeight: 600,
          textDecoration: "none",
        }}
      >
        {children}
      </a>
    </p>
  );
}

/** The link written out too, for clients that block buttons and for copying. */
export function PlainLink({ href }: { href: string }) {
  return (
    <p style={{ margin: "0 0 16px", fontSize: 14, color: muted, wordBreak: "break-all" }}>
      Or paste this address into your browser:{" "}
      <a href={href} style={{ color: accent }}>
        {href}
      </a>
    </p>
  );
}

/** A code to type in, large and spaced out (letter-spacing only, so copying it gives the bare code). */
export function Code({ code }: { code: string }) {
  return (
    <p style={{ margin: "8px 0 24px", fontSize: 30, fontWeight: 700, letterSpacing: 6, fontFamily: "ui-monospace,Menlo,Consolas,monospace" }}>
      {code}
    </p>
  );
}

export function FinePrint({ children }: { children: ReactNode }) {
  return <p style={{ margin: "0", fontSize: 14, color: muted }}>{children}</p>;
}

/** The plain-text alternative: paragraphs separated by blank lines, then the same footer. */
export function plainText(shop: Shop, paragraphs: string[]): string {
  return `${[...paragraphs, "—", `${shop.storeName} · ${shop.origin}`].join("\n\n")}\n`;
}
