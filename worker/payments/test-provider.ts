import { config } from "#worker/platform/config";
import { ApiError, badField } from "#worker/platform/errors";
import { newId } from "#worker/platform/ids";

/** A card as the local test provider takes it (digits only, MM/YY or MM/YYYY, CVC). */
export interface CardInput {
  number: string;
  expiry: string;
  cvc: string;
}

/**
 * Card payments through a provider. A provider charges an amount (minor units) in a currency to a card and says
 * APPROVED, DECLINED (with a reason) or PENDING; `refund` gives a charge back (used when the order could not be
 * written after the charge, e.g. the last unit went to another buyer in between).
 *
 * The local test provider below is used for runs without Stripe keys, and refused in production; with the keys,
 * checkout takes no card at all and sends the buyer to a Stripe Checkout Session (stripe.ts).
 */
export interface ChargeResult {
  transactionId: string;
  status: "APPROVED" | "DECLINED" | "PENDING";
  /** Why a charge was declined (e.g. card_declined, insufficient_funds); null when approved. */
  reason: string | null;
}

export interface PaymentProvider {
  readonly name: string;
  charge(amount: number, currency: string, card: CardInput): Promise<ChargeResult>;
  refund(transactionId: string, amount: number, currency: string): Promise<void>;
}

/** Test card numbers of the local provider (the usual test cards). */
export const TEST_CARDS = {
  approve: "4242424242424242",
  decline: "4000000000000002",
  insufficientFunds: "4000000000009995",
} as const;

/** The local test provider: approves 4242…4242, declines 4000…0002 (card_declined) and 4000…9995 (insufficient_funds). */
export const testProvider: PaymentProvider = {
  name: "test",
  async charge(_amount, _currency, card) {
    const transactionId = `test_${newId()}`;
    switch (card.number) {
      case TEST_CARDS.approve:
        return { transactionId, status: "APPROVED", reason: null };
      case TEST_CARDS.decline:
        return { transactionId, status: "DECLINED", reason: "card_declined" };
      case TEST_CARDS.insufficientFunds:
        return { transactionId, status: "DECLINED", reason: "insufficient_funds" };
      default:
        throw badField("paymentOption.card.number", "is not a card the test payment provider accepts (use 4242424242424242)", "VALIDATION");
    }
  },
  async refund() {},
};

/** The card provider for a deployment without Stripe keys: the local test provider, never in production. */
export function paymentProvider(env: Env): PaymentProvider {
  if (config(env).production) {
    throw new ApiError(
      503,
      "PAYMENT_PROVIDER_NOT_CONFIGURED",
      "Card payments are not set up: this shop takes no card payments until the merchant connects Stripe (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET)",
      { message: "Payments not configured", data: { provider: "test" } },
    );
  }
  return testProvider;
}

/** Validates the card number before anything is charged (the test provider's rule: a known test card). */
export function checkCard(card: CardInput): void {
  if (!Object.values(TEST_CARDS).includes(card.number as (typeof TEST_CARDS)[keyof typeof TEST_CARDS])) {
    throw badField("paymentOption.card.number", "is not a card the test payment provider accepts (use 4242424242424242)", "VALIDATION");
  }
  const [mm, yy] = card.expiry.split("/");
  const year = yy.length === 2 ? 2000 + Number(yy) : Number(yy);
  const now = new Date();
  if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && Number(mm) < now.getUTCMonth() + 1)) {
    throw badField("paymentOption.card.expiry", "is in the past: the card has expired", "VALIDATION");
  }
}
