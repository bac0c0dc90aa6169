import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fakeId, signedWebhook, stripeEvent } from "./stripe-events";

/**
 * A local fake of the few Stripe endpoints the shop calls, for the official `stripe` client pointed at it (its
 * host/port/protocol options). It answers Stripe's documented object shapes:
 *
 *   POST /v1/checkout/sessions         (form-encoded, Idempotency-Key)  → checkout.session
 *   GET  /v1/checkout/sessions/:id                                      → checkout.session
 *   POST /v1/checkout/sessions/:id/expire  (Idempotency-Key)            → checkout.session, expired (400 unless it was open)
 *   POST /v1/refunds                   (form-encoded, Idempotency-Key)  → refund (payment_intent or charge, amount, metadata)
 *   GET  /v1/refunds?payment_intent=…|charge=…                          → list of refunds, newest first
 *
 * and serves the "hosted page": GET /pay/:id shows a Pay button; POST /pay/:id marks the session paid, posts the
 * signed checkout.session.completed webhook to the shop (when it knows the shop's origin) and redirects the browser
 * to the session's success_url. For tests that run where Node's memory is out of reach (workerd):
 *
 *   GET  /__fake/requests                     → the API requests received [{method, path, idempotencyKey, body}]
 *   POST /__fake/sessions/:id/complete        → marks the session paid without any webhook; answers the session
 *   POST /__fake/refunds/:id/status  (body: the status)  → Stripe settling a refund (e.g. pending → succeeded)
 *   POST /__fake/sessions/:id/down            → calls about that session drop the connection (Stripe unreachable);
 *        POST /__fake/sessions/:id/up brings them back
 *   POST /__fake/refund-mode  {payment, mode, amount?}   → how refunds of that payment (pi_… or ch_…) behave:
 *        "succeed" (the default), "pending", "decline" (Stripe refuses: invalid_request_error), or "down" (the
 *        connection is dropped, as when Stripe cannot be reached); `amount` is the payment's amount, beyond which
 *        Stripe refuses (amount_too_large). Keyed by payment, so suites running at once do not disturb each other.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  idempotencyKey: string | null;
  body: Record<string, unknown>;
}

export interface StripeFake {
  origin: string;
  /** Where the Pay button posts the webhook (the shop's origin); unset: no webhook. */
  shopOrigin: string | null;
  requests: RecordedRequest[];
  sessions: Map<string, Record<string, any>>;
  close(): Promise<void>;
}

/** Stripe's form encoding (a[b][0][c]=v) back into an object, arrays for numeric keys. */
export function parseForm(text: string): Record<string, unknown> {
  const root: Record<string, any> = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const parts = key.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let node: any = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      const nextIsIndex = !last && /^\d+$/.test(parts[i + 1]);
      if (last) node[part] = value;
      else node = node[part] ??= nextIsIndex ? [] : {};
    });
  }
  return root;
}

const read = (req: IncomingMessage) =>
  new Promise<string>((resolve, reject) => {
    let s = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (s += c));
    req.on("end", () => resolve(s));
    req.on("error", reject);
  });

/** Starts the fake on 127.0.0.1 (a free port). */
export async function startStripeFake(shopOrigin: string | null = null): Promise<StripeFake> {
  const sessions = new Map<string, Record<string, any>>();
  const requests: RecordedRequest[] = [];
  const byKey = new Map<string, Record<string, any>>();
  const refundModes = new Map<string, { mode: string; amount: number | null; refunded: number }>();
  const refunds: Record<string, any>[] = [];
  const downSessions = new Set<string>();
  const fake: StripeFake = { origin: "", shopOrigin, requests, sessions, close: async () => {} };

  const complete = (s: Record<string, any>) => {
    if (s.status !== "complete") {
      s.status = "complete";
      s.payment_status = "paid";
      s.payment_intent = fakeId("pi");
    }
    return s;
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    const body = await read(req);
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { "content-type": "application/json", "request-id": fakeId("req") });
      res.end(JSON.stringify(value));
    };
    const sessionPath = url.pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)$/);
    const expirePath = url.pathname.match(/^\/v1\/checkout\/sessions\/([^/]+)\/expire$/);
    const aboutSession = sessionPath?.[1] ?? expirePath?.[1];
    if (aboutSession && downSessions.has(aboutSession)) {
      req.socket.destroy();
      return;
    }
    if (url.pathname.startsWith("/v1/")) {
      requests.push({
        method: req.method!,
        path: url.pathname,
        idempotencyKey: (req.headers["idempotency-key"] as string | undefined) ?? null,
        body: parseForm(body),
      });
      if (!String(req.headers.authorization ?? "").startsWith("Bearer sk_test_")) {
        return json(401, { error: { type: "invalid_request_error", message: "Invalid API Key provided" } });
      }
    }
    if (req.method === "POST" && url.pathname === "/v1/checkout/sessions") {
      const key = req.headers["idempotency-key"] as string | undefined;
      if (key && byKey.has(key)) return json(200, byKey.get(key));
      const p = parseForm(body) as Record<string, any>;
      const created = Math.floor(Date.now() / 1000);
      // Stripe's rule: a session expires 30 minutes to 24 hours after it is created (24 hours when not given).
      const expiresAt = p.expires_at === undefined ? created + 86_400 : Number(p.expires_at);
      if (!(expiresAt >= created + 1800 && expiresAt <= created + 86_400)) {
        return json(400, {
          error: {
            type: "invalid_request_error",
            param: "expires_at",
            message: "The `expires_at` timestamp must be between 30 minutes and 24 hours after the Checkout Session is created.",
          },
        });
      }
      const lines = (p.line_items ?? []) as Record<string, any>[];
      const subtotal = lines.reduce((n, l) => n + Number(l.price_data.unit_amount) * Number(l.quantity ?? 1), 0);
      const shipping = Number(p.shipping_options?.[0]?.shipping_rate_data?.fixed_amount?.amount ?? 0);
      const id = fakeId("cs");
      const session = {
        id,
        object: "checkout.session",
        amount_subtotal: subtotal,
        amount_total: subtotal + shipping,
        cancel_url: p.cancel_url,
        client_reference_id: p.client_reference_id ?? null,
        created,
        currency: String(lines[0]?.price_data?.currency ?? "usd"),
        customer_email: p.customer_email ?? null,
        expires_at: expiresAt,
        livemode: false,
        metadata: p.metadata ?? {},
        mode: p.mode,
        payment_intent: null,
        payment_status: "unpaid",
        shipping_cost: shipping ? { amount_total: shipping } : null,
        status: "open",
        success_url: p.success_url,
        url: `${fake.origin}/pay/${id}`,
      };
      sessions.set(id, session);
      if (key) byKey.set(key, session);
      return json(200, session);
    }
    if (req.method === "GET" && sessionPath) {
      const s = sessions.get(sessionPath[1]);
      if (!s)
        return json(404, {
          error: { type: "invalid_request_error", code: "resource_missing", message: `No such checkout.session: '${sessionPath[1]}'` },
        });
      return json(200, s);
    }
    if (req.method === "POST" && expirePath) {
      // Stripe replays an Idempotency-Key's first answer; only an open session can be expired.
      const key = req.headers["idempotency-key"] as string | undefined;
      if (key && byKey.has(key)) return json(200, byKey.get(key));
      const s = sessions.get(expirePath[1]);
      if (!s)
        return json(404, {
          error: { type: "invalid_request_error", code: "resource_missing", message: `No such checkout.session: '${expirePath[1]}'` },
        });
      if (s.status !== "open") {
        return json(400, {
          error: {
            type: "invalid_request_error",
            message: `Only Checkout Sessions with a status in ["open"] can be expired. This session has status "${s.status}".`,
          },
        });
      }
      s.status = "expired";
      if (key) byKey.set(key, { ...s });
      return json(200, s);
    }
    if (req.method === "GET" && url.pathname === "/v1/refunds") {
      const pi = url.searchParams.get("payment_intent");
      const charge = url.searchParams.get("charge");
      const rule = refundModes.get(pi ?? charge ?? "");
      if (rule?.mode === "down") {
        req.socket.destroy();
        return;
      }
      const data = refunds.filter((r) => (pi ? r.payment_intent === pi : r.charge === charge)).reverse();
      return json(200, { object: "list", data, has_more: false, url: "/v1/refunds" });
    }
    if (req.method === "POST" && url.pathname === "/v1/refunds") {
      const key = req.headers["idempotency-key"] as string | undefined;
      const p = parseForm(body) as Record<string, any>;
      const payment = String(p.payment_intent ?? p.charge ?? "");
      const rule = refundModes.get(payment) ?? { mode: "succeed", amount: null, refunded: 0 };
      if (rule.mode === "down") {
        req.socket.destroy();
        return;
      }
      if (key && byKey.has(key)) return json(200, byKey.get(key));
      const amount = Number(p.amount);
      if (rule.mode === "decline" || (rule.amount !== null && rule.refunded + amount > rule.amount)) {
        const code = rule.mode === "decline" ? "charge_disputed" : "amount_too_large";
        return json(400, { error: { type: "invalid_request_error", code, message: `Refund of ${payment} refused (${code})` } });
      }
      rule.refunded += amount;
      refundModes.set(payment, rule);
      const refund = {
        id: fakeId("re"),
        object: "refund",
        amount,
        balance_transaction: null,
        charge: p.charge ?? fakeId("ch"),
        created: Math.floor(Date.now() / 1000),
        currency: "usd",
        metadata: p.metadata ?? {},
        payment_intent: p.payment_intent ?? null,
        reason: p.reason ?? null,
        receipt_number: null,
        source_transfer_reversal: null,
        status: rule.mode === "pending" ? "pending" : "succeeded",
        transfer_reversal: null,
      };
      if (key) byKey.set(key, refund);
      refunds.push(refund);
      return json(200, refund);
    }
    if (req.method === "POST" && url.pathname === "/__fake/refund-mode") {
      const p = JSON.parse(body || "{}") as { payment: string; mode: string; amount?: number };
      refundModes.set(p.payment, { mode: p.mode, amount: p.amount ?? null, refunded: refundModes.get(p.payment)?.refunded ?? 0 });
      return json(200, { ok: true });
    }
    if (req.method === "GET" && url.pathname === "/__fake/requests") return json(200, requests);
    const refundStatus = url.pathname.match(/^\/__fake\/refunds\/([^/]+)\/status$/);
    if (req.method === "POST" && refundStatus) {
      const r = refunds.find((x) => x.id === refundStatus[1]);
      if (r) r.status = body.trim();
      return r ? json(200, r) : json(404, {});
    }
    const sessionSwitch = url.pathname.match(/^\/__fake\/sessions\/([^/]+)\/(down|up)$/);
    if (req.method === "POST" && sessionSwitch) {
      if (sessionSwitch[2] === "down") downSessions.add(sessionSwitch[1]);
      else downSessions.delete(sessionSwitch[1]);
      return json(200, { ok: true });
    }
    const completePath = url.pathname.match(/^\/__fake\/sessions\/([^/]+)\/complete$/);
    if (req.method === "POST" && completePath) {
      const s = sessions.get(completePath[1]);
      return s ? json(200, complete(s)) : json(404, {});
    }
    const pay = url.pathname.match(/^\/pay\/([^/]+)$/);
    const s = pay ? sessions.get(pay[1]) : undefined;
    if (pay && s && req.method === "GET") {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      const amount = (s.amount_total / 100).toFixed(2);
      res.end(
        `<!doctype html><html lang="en"><link rel="icon" href="data:,"><title>Fake Stripe Checkout</title><h1>Pay ${amount} ${s.currency.toUpperCase()}</h1>` +
          `<p id="fake-amount">${s.amount_total}</p><form method="post"><button type="submit">Pay</button></form>`,
      );
      return;
    }
    if (pay && s && req.method === "POST") {
      complete(s);
      if (fake.shopOrigin) {
        const { payload, signature } = await signedWebhook(stripeEvent("checkout.session.completed", s));
        await fetch(`${fake.shopOrigin}/webhooks/stripe`, {
          method: "POST",
          headers: { "content-type": "application/json", "stripe-signature": signature },
          body: payload,
        });
      }
      res.writeHead(303, { location: String(s.success_url).replace("{CHECKOUT_SESSION_ID}", s.id) });
      res.end();
      return;
    }
    json(404, { error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${url.pathname})` } });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () => new Promise((resolve) => server.close(() => resolve()));
  return fake;
}
