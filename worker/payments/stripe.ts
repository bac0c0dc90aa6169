import Stripe from "stripe";
import { config } from "#worker/platform/config";
import { ApiError } from "#worker/platform/errors";

/**
 * Stripe through its official package, with the fetch HTTP client and the WebCrypto provider (Workers have no Node
 * http or crypto). Checkout never sees a card: the order is written first, then a Checkout Session (Stripe's hosted
 * page) is made from the amounts our server priced, and the buyer is sent there. Every POST carries an
 * Idempotency-Key made from our own id, so a retry (ours or the buyer's) gets the same session back.
 */

/** The Stripe settings of a deployment with both secrets set, else null. */
export type StripeSettings = NonNullable<ReturnType<typeof config>["stripe"]>;

/** Stripe's settings for this env, or null without the keys. */
export function stripeSettings(env: Env): StripeSettings | null {
  return config(env).stripe;
}

const clients = new WeakMap<StripeSettings, Stripe>();
const cryptoProvider = Stripe.createSubtleCryptoProvider();

/** The Stripe client for these settings (one per isolate and configuration). */
function client(s: StripeSettings): Stripe {
  let c = clients.get(s);
  if (!c) {
    const base = s.apiBase ? new URL(s.apiBase) : null;
    c = new Stripe(s.secretKey, {
      httpClient: Stripe.createFetchHttpClient(),
      maxNetworkRetries: 1,
      timeout: 10_000,
      ...(base
        ? {
            host: base.hostname,
            port: base.port || (base.protocol === "https:" ? "443" : "80"),
            protocol: base.protocol.replace(":", "") as "http" | "https",
          }
        : {}),
    });
    clients.set(s, c);
  }
  return c;
}

/** 502 PROVIDER_IS_DOWN: Stripe could not be reached or refused the call; nothing was charged. */
export function providerDown(err: unknown, data: Record<string, unknown> = {}): ApiError {
  const detail = err instanceof Stripe.errors.StripeError ? `${err.type}: ${err.message}` : "no answer";
  console.error("stripe call failed", detail);
  return new ApiError(502, "PROVIDER_IS_DOWN", "The payment provider could not be reached; nothing was charged. Try again in a moment.", {
    message: "Payment provider unavailable",
    data: { provider: "stripe", ...data },
  });
}

/** One order line as the hosted page lists it: our name, quantity and unit price (minor units). */
export interface SessionLine {
  name: string;
  quantity: number;
  unitAmount: number;
}

/** What a Checkout Session is made from: the order exactly as our server priced it. */
export interface SessionInput {
  orderId: string;
  currency: string;
  email: string | null;
  lines: SessionLine[];
  shipping: { name: string; amount: number } | null;
  tax: number;
  fees: number;
  discount: number;
  /** The order's total: the session's amount_total must equal it. */
  total: number;
  /** When the hosted page stops taking payment (epoch seconds); Stripe wants 30 minutes to 24 hours from creation. */
  expiresAt: number;
  successUrl: string;
  cancelUrl: string;
}

type LineItem = Stripe.Checkout.SessionCreateParams.LineItem;

const priced = (currency: string, name: string, unitAmount: number, quantity = 1): LineItem => ({
  quantity,
  price_data: { currency: currency.toLowerCase(), unit_amount: unitAmount, product_data: { name: name.slice(0, 250) || "Item" } },
});

/**
 * The session's line items: one per order line, then tax and fees, with shipping as the session's shipping option.
 * When the lines do not add up to the total (a discount, a price spread over units), the goods become one line of
 * their discounted sum, so what Stripe charges is always our total.
 */
export function sessionLineItems(input: SessionInput): LineItem[] {
  const shipping = input.shipping?.amount ?? 0;
  const extras = [
    ...(input.tax > 0 ? [priced(input.currency, "Tax", input.tax)] : []),
    ...(input.fees > 0 ? [priced(input.currency, "Fees", input.fees)] : []),
  ];
  const itemized = input.lines.filter((l) => l.quantity > 0).map((l) => priced(input.currency, l.name, l.unitAmount, l.quantity));
  const sum = (items: LineItem[]) => items.reduce((n, i) => n + (i.price_data?.unit_amount ?? 0) * (i.quantity ?? 1), 0);
  if (
    input.discount === 0 &&
    sum(itemized) + sum(extras) + shipping === input.total &&
    itemized.every((i) => (i.price_data?.unit_amount ?? 0) >= 0)
  ) {
    return [...itemized, ...extras];
  }
  const goods = input.total - shipping - sum(extras);
  const names = input.lines.map((l) => `${l.quantity} × ${l.name}`).join(", ");
  return [priced(input.currency, `Order items${input.discount > 0 ? " (after discount)" : ""}: ${names}`, goods), ...extras].filter(
    (i) => (i.price_data?.unit_amount ?? 0) > 0,
  );
}

/** A session as checkout uses it: its id and the hosted page's URL. */
export interface CreatedSession {
  id: string;
  url: string;
}

/** Creates (or, for the same order, gets back) the order's Checkout Session. 502 PROVIDER_IS_DOWN when Stripe fails. */
export async function createCheckoutSession(s: StripeSettings, input: SessionInput): Promise<CreatedSession> {
  const params: Stripe.Checkout.SessionCreateParams = {
    mode: "payment",
    client_reference_id: input.orderId,
    metadata: { orderId: input.orderId },
    payment_intent_data: { metadata: { orderId: input.orderId } },
    line_items: sessionLineItems(input),
    ...(input.shipping && input.shipping.amount >= 0
      ? {
          shipping_options: [
            {
              shipping_rate_data: {
                type: "fixed_amount",
                display_name: input.shipping.name.slice(0, 100) || "Shipping",
                fixed_amount: { amount: input.shipping.amount, currency: input.currency.toLowerCase() },
              },
            },
          ],
        }
      : {}),
    ...(input.email ? { customer_email: input.email } : {}),
    success_url: input.successUrl,
    cancel_url: input.cancelUrl,
    expires_at: input.expiresAt,
  };
  try {
    const session = await client(s).checkout.sessions.create(params, { idempotencyKey: `checkout-session:${input.orderId}` });
    if (!session.url) throw new Error("the session has no url");
    return { id: session.id, url: session.url };
  } catch (err) {
    throw providerDown(err, { orderId: input.orderId });
  }
}

/** A Checkout Session as the confirmation page needs it: whose order, whether paid, and its payment. */
export interface SessionState {
  id: string;
  orderId: string | null;
  status: string | null;
  paid: boolean;
  paymentIntentId: string | null;
  amountTotal: number | null;
  currency: string | null;
}

/** Reads a Checkout Session back from Stripe (the confirmation page, when the webhook is late). */
export async function retrieveCheckoutSession(s: StripeSettings, id: string): Promise<SessionState> {
  try {
    return sessionState(await client(s).checkout.sessions.retrieve(id));
  } catch (err) {
    throw providerDown(err);
  }
}

/**
 * Expires an open Checkout Session, so its page takes no payment any more (keyed by the session: a retry is the same
 * call). Answers the session as it then stands: one no longer open (paid meanwhile, or expired already) is read back
 * instead. 502 PROVIDER_IS_DOWN when Stripe cannot be reached.
 */
export async function expireCheckoutSession(s: StripeSettings, id: string): Promise<SessionState> {
  try {
    return sessionState(await client(s).checkout.sessions.expire(id, {}, { idempotencyKey: `expire-session:${id}` }));
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripeInvalidRequestError)) throw providerDown(err);
  }
  return retrieveCheckoutSession(s, id);
}

const idOf = (v: string | { id: string } | null | undefined) => (typeof v === "string" ? v : (v?.id ?? null));

/** The parts of a Checkout Session we act on. */
export function sessionState(session: Stripe.Checkout.Session): SessionState {
  return {
    id: session.id,
    orderId: session.client_reference_id ?? session.metadata?.orderId ?? null,
    status: session.status ?? null,
    paid: session.payment_status === "paid" || session.payment_status === "no_payment_required",
    paymentIntentId: idOf(session.payment_intent),
    amountTotal: session.amount_total ?? null,
    currency: session.currency?.toUpperCase() ?? null,
  };
}

/** Verifies a webhook's Stripe-Signature (5 minutes' tolerance) and answers the event, or null when it does not verify. */
export async function verifiedEvent(s: StripeSettings, body: string, signature: string | null): Promise<Stripe.Event | null> {
  if (!signature) return null;
  try {
    return await client(s).webhooks.constructEventAsync(body, signature, s.webhookSecret, 300, cryptoProvider);
  } catch {
    return null;
  }
}

/** A refund as Stripe answers it: its id and status (succeeded, pending, requires_action, failed, canceled). */
export interface ProviderRefund {
  id: string;
  status: string;
}

/** What to refund: our refund and order ids, the payment (pi_… or ch_…), and the amount in minor units. */
export interface RefundInput {
  refundId: string;
  orderId: string;
  paymentId: string;
  amount: number;
}

/** 502 PROVIDER_IS_DOWN for a refund: Stripe could not be reached; nothing was refunded. */
function refundProviderDown(err: unknown, data: Record<string, unknown>): ApiError {
  const detail = err instanceof Stripe.errors.StripeError ? `${err.type}: ${err.message}` : "no answer";
  console.error("stripe refund failed", detail);
  return new ApiError(502, "PROVIDER_IS_DOWN", "The payment provider could not be reached, so nothing was refunded. Try again in a moment.", {
    message: "Refund not possible",
    data: { reason: "PROVIDER_IS_DOWN", provider: "stripe", ...data },
  });
}

/** Stripe could not be reached (or failed on its side): the refund may be tried again. */
export function isProviderDown(err: unknown): boolean {
  return err instanceof ApiError && err.code === "PROVIDER_IS_DOWN";
}

/**
 * Refunds part or all of a payment through Stripe's Refunds API, keyed by our refund id (a retry gets the same
 * refund back). 502 PROVIDER_IS_DOWN when Stripe cannot be reached; 402 REFUND_DECLINED when Stripe refuses it.
 */
export async function createRefund(s: StripeSettings, input: RefundInput): Promise<ProviderRefund> {
  const params: Stripe.RefundCreateParams = {
    ...(input.paymentId.startsWith("ch_") ? { charge: input.paymentId } : { payment_intent: input.paymentId }),
    amount: input.amount,
    metadata: { orderId: input.orderId, refundId: input.refundId },
  };
  try {
    const refund = await client(s).refunds.create(params, { idempotencyKey: `refund:${input.refundId}` });
    return { id: refund.id, status: refund.status ?? "pending" };
  } catch (err) {
    const data = { orderId: input.orderId, refundId: input.refundId };
    if (err instanceof Stripe.errors.StripeIdempotencyError) {
      throw new ApiError(409, "IDEMPOTENCY_KEY_UNUSABLE", `Stripe would not replay the refund's key: ${err.message}`, {
        data: { provider: "stripe", ...data },
      });
    }
    if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError) {
      throw new ApiError(402, "REFUND_DECLINED", `Stripe refused the refund: ${err.message}`, {
        message: "Refund not possible",
        data: { reason: "REFUND_DECLINED", provider: "stripe", stripeCode: err.code ?? null, ...data },
      });
    }
    throw refundProviderDown(err, data);
  }
}

/** A refund Stripe holds for a payment, as the refunds sweep matches it to ours. */
export interface ListedRefund extends ProviderRefund {
  /** Our refund id, from the refund's metadata (null for a refund made in Stripe's dashboard). */
  refundId: string | null;
}

/**
 * The refunds Stripe holds for a payment (pi_… or ch_…), newest first, to find one of ours by its metadata when its
 * key can no longer be replayed. 502 PROVIDER_IS_DOWN when Stripe cannot be reached.
 */
export async function listRefunds(s: StripeSettings, paymentId: string): Promise<ListedRefund[]> {
  const params: Stripe.RefundListParams = paymentId.startsWith("ch_") ? { charge: paymentId, limit: 100 } : { payment_intent: paymentId, limit: 100 };
  try {
    const out: ListedRefund[] = [];
    for await (const r of client(s).refunds.list(params)) {
      out.push({ id: r.id, status: r.status ?? "pending", refundId: r.metadata?.refundId ?? null });
      if (out.length >= 1000) break;
    }
    return out;
  } catch (err) {
    throw refundProviderDown(err, { paymentId });
  }
}
