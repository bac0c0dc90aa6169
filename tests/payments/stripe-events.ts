import Stripe from "stripe";

/** Stripe test values and events, for the workerd and the Node suites alike (no Node modules here). */

export const FAKE_WEBHOOK_SECRET = "whsec_fakefakefakefakefakefakefakefake";
export const FAKE_SECRET_KEY = "sk_test_fakeStripeKeyForLocalTests";

let counter = 0;
/** An id in Stripe's style (`evt_test_…`). */
export const fakeId = (prefix: string) =>
  `${prefix}_test_${Date.now().toString(36)}${(++counter).toString(36)}${Math.random().toString(36).slice(2, 8)}`;

/** A Stripe event of `type` about `object`, as Stripe posts it. */
export function stripeEvent(type: string, object: Record<string, unknown>, created = Math.floor(Date.now() / 1000)) {
  return {
    id: fakeId("evt"),
    object: "event",
    api_version: "2026-10-28.endive",
    created,
    livemode: false,
    pending_webhooks: 1,
    type,
    data: { object },
  };
}

const subtle = Stripe.createSubtleCryptoProvider();

/** A webhook body and its Stripe-Signature, signed by the package's own test helper (WebCrypto: runs in workerd and Node). */
export async function signedWebhook(event: object, opts: { secret?: string; timestamp?: number } = {}) {
  const payload = JSON.stringify(event);
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload,
    secret: opts.secret ?? FAKE_WEBHOOK_SECRET,
    cryptoProvider: subtle,
    ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
  });
  return { payload, signature };
}
