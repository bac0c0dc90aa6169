import { Badge } from "./badge";

/**
 * Pieces of the abandoned-cart pages: who the cart belongs to, its status, how many items, and each activity of
 * its timeline in the merchant's words.
 */

interface CartLike {
  buyerInfo: { email?: string; memberId?: string; visitorId?: string };
  contactDetails?: { firstName?: string; lastName?: string };
}

/** "Robin Hart <robin@example.com>", or the email, or who it is when there is neither. */
export function contactOf(c: CartLike): string {
  const name = [c.contactDetails?.firstName, c.contactDetails?.lastName].filter(Boolean).join(" ");
  const email = c.buyerInfo.email;
  if (name && email) return `${name} <${email}>`;
  return email || name || (c.buyerInfo.memberId ? "A member" : "A visitor");
}

/** The units in the cart's line items. */
export function itemsCount(lineItems: Record<string, unknown>[]): number {
  return lineItems.reduce((n, l) => n + (typeof l.quantity === "number" ? l.quantity : 1), 0);
}

export function CartStatusBadge({ status }: { status: string }) {
  return <Badge tone={status === "RECOVERED" ? "good" : "warn"}>{status === "RECOVERED" ? "Recovered" : "Abandoned"}</Badge>;
}

/** Why a recovery email was not sent (the EMAIL_NOT_SENT reasons of worker/automations/abandoned-carts.ts). */
export const NOT_SENT_REASONS: Record<string, string> = {
  NO_EMAIL: "there is no email address to send it to",
  UNSUBSCRIBED: "the shopper unsubscribed from marketing emails",
  CART_EMPTIED: "the cart was emptied or no longer exists",
  ALREADY_RECOVERED: "the cart had already been bought",
  SEND_FAILED: "the email could not be sent",
  SUPERSEDED: "a later reminder was due as well, so only that one went out",
  RECOVERED: "the cart was bought",
};

export const notSentReason = (reason: string | null | undefined) =>
  reason ? (NOT_SENT_REASONS[reason] ?? reason.toLowerCase().replace(/_/g, " ")) : "no reason recorded";

/** Steps of the email schedule the form offers (the service allows up to 5). */
export const SCHEDULE_STEPS = 5;

export const CART_STATUSES = ["ABANDONED", "RECOVERED"] as const;

/** The settings form's values as typed. */
export interface SettingsValues {
  enabled: boolean;
  idleMinutes: string;
  steps: { on: boolean; hours: string }[];
  highValue: string;
  linkDays: string;
  lowStock: string;
}

/** The steps switched on, in order: entry k of the patch's schedule is step stepsOn(v)[k] of the form. */
export function stepsOn(v: SettingsValues): number[] {
  return v.steps.flatMap((s, i) => (s.on ? [i + 1] : []));
}
