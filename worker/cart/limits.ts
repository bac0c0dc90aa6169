import { isMerchant, type Ctx } from "#worker/platform/context";
import type { Limit } from "#worker/platform/rate-limit";

/**
 * How many checkouts and orders one shopper may make: per buyer (the member, else the visitor token) and per client
 * address. Each order reserves stock and emails a confirmation to an address the buyer gives, so a script must not
 * place them by the dozen; the ceilings leave a real shopper (and many shoppers behind one address) ample room.
 * The store's owner, staff and API keys are not limited. Counted in the batch that writes the checkout or the order
 * (platform/rate-limit.ts inBatchLimitStatements): only what was written counts, and a refused call writes nothing.
 */

/** Who is asking, beyond the auth context: the client address Cloudflare reports. */
export interface ShopperClient {
  ip?: string;
}

const HOUR = 60 * 60;

export const SHOPPER_LIMITS = {
  orders: { perBuyer: 10, perAddress: 30, windowSeconds: HOUR },
  checkouts: { perBuyer: 60, perAddress: 200, windowSeconds: HOUR },
} as const;

/** The buyer a limit counts for: the member (on every device), else the visitor token; null for merchants. */
function buyerKey(ctx: Ctx): string | null {
  const a = ctx.auth;
  if (isMerchant(a)) return null;
  if (a.kind === "member") return `member:${a.identityId}`;
  if (a.kind === "visitor") return `visitor:${a.visitorId}`;
  return null;
}

function limitsFor(ctx: Ctx, kind: "orders" | "checkouts", client: ShopperClient): Limit[] {
  const buyer = buyerKey(ctx);
  if (!buyer) return [];
  const l = SHOPPER_LIMITS[kind];
  const what = kind === "orders" ? "orders" : "checkouts";
  return [
    { key: `${kind}:${buyer}`, max: l.perBuyer, windowSeconds: l.windowSeconds, what: `${what} from this shopper` },
    ...(client.ip ? [{ key: `${kind}:ip:${client.ip}`, max: l.perAddress, windowSeconds: l.windowSeconds, what: `${what} from this address` }] : []),
  ];
}

/** The limits a shopper's create-order counts against (none for merchants). */
export function orderLimits(ctx: Ctx, client: ShopperClient = {}): Limit[] {
  return limitsFor(ctx, "orders", client);
}

/** The limits a shopper's create-checkout counts against (none for merchants). */
export function checkoutLimits(ctx: Ctx, client: ShopperClient = {}): Limit[] {
  return limitsFor(ctx, "checkouts", client);
}
