import type { Permission } from "./context";

/**
 * What every API route needs, in one table: the documentation of who may call what. The services check it
 * themselves (the console calls them in-process, without routes); tests/platform/route-permissions.test.ts keeps
 * this table equal to the app's route table and walks every entry that names a permission or the owner with staff
 * members and STAFF API keys holding each single permission.
 *
 *   public     anyone, no credentials (a merchant may see more, e.g. hidden products)
 *   own        the caller's own resource: a visitor's or member's token (the current cart, a checkout, an order)
 *   staff      any merchant: the owner, a staff member or an API key, with no permission needed (reads)
 *   <perm>     a merchant holding this permission (the owner and OWNER keys hold every one)
 *   owner      the store's owner only (the owner's token or an OWNER key)
 *   signature  a signed webhook (the source's key), no Authorization header
 */
export type Need = "public" | "own" | "staff" | "owner" | "signature" | Permission;

export interface RouteRule {
  needs: Need;
  /** For an `own` call: what a merchant needs to do it on another person's resource (absent: nobody may). */
  others?: "staff" | Permission;
  /** Parts of a call that need a permission on top: a body field, or a variant of the call. */
  also?: Record<string, Permission>;
}

const rules: Record<string, RouteRule> = {};

/** Adds `METHOD path` entries under each base path (the Wix REST path and the Wix gateway path share their handlers). */
function under(bases: string[], entries: Record<string, RouteRule>): void {
  for (const base of bases) {
    for (const [key, rule] of Object.entries(entries)) {
      const [method, path] = key.split(" ");
      rules[`${method} ${base}${path}`] = rule;
    }
  }
}

const PUBLIC: RouteRule = { needs: "public" };
const OWN: RouteRule = { needs: "own" };
const STAFF: RouteRule = { needs: "staff" };
const OWNER: RouteRule = { needs: "owner" };
const need = (permission: Permission): RouteRule => ({ needs: permission });

under([""], {
  "GET /api/health": PUBLIC,
  "POST /api/v1/demo-catalogue": need("catalog.write"),
  "POST /oauth2/token": { needs: "public", also: { "grant_type=authorized_client (member tokens for any member)": "members.impersonate" } },
  "GET /oauth2/authorize": PUBLIC,
});

under(["/v1", "/_api/redirects-api/v1"], { "POST /redirect-session": PUBLIC });

under(["", "/_api/iam/authentication"], {
  "POST /v2/register": PUBLIC,
  "POST /v2/login": PUBLIC,
  "POST /v2/change-password": OWN,
  "POST /v2/sign-on": need("members.impersonate"),
  "POST /v2/validate-email": PUBLIC,
  "POST /v2/:factorType/verify": PUBLIC,
  "GET /api/v1/members": STAFF,
  "GET /api/v1/members/:id": STAFF,
  "POST /api/v1/members/:id/approve": need("settings.manage"),
  "POST /api/v1/members/:id/block": need("settings.manage"),
  "POST /api/v1/members/:id/unblock": need("settings.manage"),
  "POST /api/v1/members/me/sign-out-everywhere": OWN,
  "GET /api/v1/identity-settings": STAFF,
  "PATCH /api/v1/identity-settings": OWNER,
  "GET /v1/callback": PUBLIC,
  "GET /v1/logout": PUBLIC,
});

under(["/v1", "/_api/iam/recovery/v1"], {
  "POST /send-email": PUBLIC,
  "POST /activation-email": need("settings.manage"),
  "POST /recover": PUBLIC,
});

under(["/v1", "/_api/iam/verification/v1"], {
  // A member for themselves; for any member, a merchant holding members.impersonate (the code signs the member in).
  "POST /Start": { needs: "own", others: "members.impersonate" },
  "POST /start": { needs: "own", others: "members.impersonate" },
  "POST /auth/verify": PUBLIC,
  "POST /auth/resend": PUBLIC,
});

under(["/api/v1"], {
  "POST /bootstrap": OWNER,
  "POST /staff": OWNER,
  "GET /staff": STAFF,
  "POST /staff/:id/activation-email": OWNER,
  "PATCH /staff/:id": OWNER,
  "DELETE /staff/:id": OWNER,
  "POST /staff/:id/unblock": OWNER,
  "POST /api-keys": OWNER,
  "GET /api-keys": STAFF,
  "PATCH /api-keys/:id": OWNER,
  "DELETE /api-keys/:id": OWNER,
  "GET /oauth-clients": STAFF,
  "POST /oauth-clients": OWNER,
  "PATCH /oauth-clients/:id": need("settings.manage"),
  "GET /store-settings": STAFF,
  "PATCH /store-settings": need("settings.manage"),
});

under(["/v1", "/stores-reader/v1"], {
  "GET /products/query-platformized": PUBLIC,
  "POST /products/query-platformized": PUBLIC,
  "GET /products/query": PUBLIC,
  "POST /products/query": PUBLIC,
  "GET /products/:id": PUBLIC,
  "POST /products/:id/productOptionsAvailability": PUBLIC,
  "POST /products/:id/variants/query": PUBLIC,
  "GET /variants/query": PUBLIC,
  "POST /variants/query": PUBLIC,
  "GET /variants/:id": PUBLIC,
  "GET /collections/slug/:slug": PUBLIC,
});

under(["/v1", "/stores/v1"], {
  "POST /products": { needs: "catalog.write", also: { "product.stock (quantity or tracking)": "inventory.write" } },
  "PATCH /products/:id": { needs: "catalog.write", also: { "product.stock / variants[].stock (quantity or tracking)": "inventory.write" } },
  "DELETE /products/:id": need("catalog.write"),
  "PATCH /products/:id/variants": need("catalog.write"),
  "POST /products/:id/variants/resetToDefault": need("catalog.write"),
  "POST /products/:id/media": need("catalog.write"),
  "POST /products/:id/media/delete": need("catalog.write"),
  "PATCH /products/:id/choices/media": need("catalog.write"),
  "POST /products/:id/choices/media/delete": need("catalog.write"),
  "DELETE /products/:id/options": need("catalog.write"),
  "POST /products/:id/remove-brand": need("catalog.write"),
  "POST /products/:id/remove-ribbon": need("catalog.write"),
  "POST /collections": need("catalog.write"),
  "PATCH /collections/:id": need("catalog.write"),
  "DELETE /collections/:id": need("catalog.write"),
  "POST /collections/:id/productIds": need("catalog.write"),
  "POST /collections/:id/productIds/delete": need("catalog.write"),
  "POST /bulk/products/update": need("catalog.write"),
  "POST /bulk/products/adjust-properties": need("catalog.write"),
});

under(["/v3", "/stores/v3", "/stores-reader/v3"], {
  "GET /products/query": PUBLIC,
  "POST /products/query": PUBLIC,
  "GET /products/:id": PUBLIC,
});

under(["/v2/collections", "/stores-reader/v2/collections"], {
  "GET /query": PUBLIC,
  "POST /query": PUBLIC,
  "GET /slug/:slug": PUBLIC,
  "GET /:id": PUBLIC,
});

under([""], {
  "GET /media/*": PUBLIC,
  "POST /api/media": need("catalog.write"),
});

// The current cart is always the caller's own: API keys have none, and nobody reaches another person's cart.
const PRICES = { customLineItems: "orders.write", merchantDiscounts: "orders.write" } as const;
under(["/v1/carts/current", "/ecom/v1/carts/current"], {
  "GET ": OWN,
  "PATCH ": { needs: "own", also: PRICES },
  "DELETE ": OWN,
  "POST /add-to-cart": { needs: "own", also: { customLineItems: "orders.write" } },
  "POST /remove-line-items": OWN,
  "POST /update-line-items-quantity": OWN,
  "POST /remove-coupon": OWN,
  "POST /create-checkout": OWN,
  "POST /estimate-totals": OWN,
});

const pricingResource = {
  "POST ": need("settings.manage"),
  "GET /query": STAFF,
  "POST /query": STAFF,
  "GET ": STAFF,
  "GET /:id": STAFF,
  "PATCH /:id": need("settings.manage"),
  "DELETE /:id": need("settings.manage"),
};
under(["/ecom/v1/discount-rules"], pricingResource);
under(["/api/v1/coupons"], pricingResource);
under(["/api/v1/shipping-regions"], pricingResource);
under(["/api/v1/tax-groups"], pricingResource);
under(["/api/v1/tax-regions"], pricingResource);
under(["/api/v1/additional-fees"], pricingResource);
under(["/api/v1/pricing-settings"], { "GET ": STAFF, "PATCH ": need("settings.manage") });

under(["/stores-reader/v2/inventoryItems", "/stores/v2/inventoryItems", "/v2/inventoryItems"], {
  "GET /query": STAFF,
  "POST /query": STAFF,
  "POST /:inventoryId/getVariants": STAFF,
});
under(["/stores/v2/inventoryItems", "/v2/inventoryItems"], {
  "PATCH /product/:productId": need("inventory.write"),
  "POST /increment": need("inventory.write"),
  "POST /decrement": need("inventory.write"),
});
under([""], { "GET /api/v1/inventory/:productId/history": STAFF });

under(["/v1", "/ecom/v1"], {
  "GET /checkouts/:id": { needs: "own", others: "staff" },
  "PATCH /checkouts/:id": { needs: "own", others: "orders.write" },
  "POST /checkouts/:id/create-order": { needs: "own", others: "orders.write" },
  "POST /orders/search": { needs: "own", others: "staff" },
  "GET /orders/:id": { needs: "own", others: "staff" },
  "POST /orders/:id/cancel": need("orders.write"),
  "POST /orders/:id/mark-as-paid": need("orders.write"),
  "POST /orders/:id/fulfillments": need("orders.write"),
  "POST /orders/:id/refund-status": need("orders.write"),
  "POST /orders/:id/refunds": need("orders.write"),
  "GET /orders/:id/refunds": { needs: "own", others: "staff" },
  "POST /orders/:id/activities": need("orders.write"),
});

// Customers: members and guests merged by email (worker/customers).
under(["/api/v1"], {
  "GET /customers": STAFF,
  "GET /customers/:email": STAFF,
  "POST /customers/:email/notes": need("orders.write"),
});

// The console's search (worker/reports).
under(["/api/v1"], { "GET /console-search": STAFF });
// Sales reports (worker/reports): readable by any staff member, as the dashboard is.
under(["/api/v1"], { "GET /reports/:report": STAFF });

// Digital products' files, and a buyer's download links (never minted for anyone but the order's own buyer).
under(["/api/v1"], {
  "GET /products/:id/downloads": STAFF,
  "PUT /products/:id/downloads": need("catalog.write"),
  "DELETE /products/:id/downloads": need("catalog.write"),
  "GET /orders/:id/downloads": OWN,
});
// A bought file: the link's signature (order, line, expiry) is the credential, so no Authorization header.
under([""], { "GET /downloads/:orderId/:lineId": PUBLIC });

under([""], { "POST /webhooks/stripe": { needs: "signature" }, "POST /webhooks/:source": { needs: "signature" } });

under(["/api/v1"], {
  "POST /webhook-sources": {
    needs: "automations.manage",
    also: { "eventTypes that change stock (inventory.updated, the default)": "inventory.write" },
  },
  "GET /webhook-sources": STAFF,
  "GET /webhook-sources/:id": STAFF,
  "PATCH /webhook-sources/:id": { needs: "automations.manage", also: { "a source that may send stock updates": "inventory.write" } },
  "POST /webhook-sources/:id/keys": { needs: "automations.manage", also: { "a source that may send stock updates": "inventory.write" } },
  "DELETE /webhook-sources/:id/keys/:keyId": need("automations.manage"),
  "POST /webhook-sources/:id/rotate": { needs: "automations.manage", also: { "a source that may send stock updates": "inventory.write" } },
  "DELETE /webhook-sources/:id": need("automations.manage"),
  "GET /webhook-sources/:id/events": STAFF,
  "POST /webhook-subscriptions": need("automations.manage"),
  "GET /webhook-subscriptions": STAFF,
  "GET /webhook-subscriptions/:id": STAFF,
  "PATCH /webhook-subscriptions/:id": need("automations.manage"),
  "DELETE /webhook-subscriptions/:id": need("automations.manage"),
  "POST /webhook-subscriptions/:id/rotate-secret": need("automations.manage"),
  "POST /webhook-subscriptions/:id/test": need("automations.manage"),
  "GET /webhook-subscriptions/:id/deliveries": STAFF,
  "GET /webhook-deliveries/:id": STAFF,
  "POST /webhook-deliveries/:id/redeliver": need("automations.manage"),
  "GET /webhook-public-key": PUBLIC,
  "GET /events/failures": STAFF,
  "POST /events/failures/replay-all": need("automations.manage"),
  "POST /events/failures/:id/replay": need("automations.manage"),
  "POST /events/sweep": need("automations.manage"),
  "GET /tasks": STAFF,
  "POST /tasks/:id/complete": need("automations.manage"),
});

under(["/ecom/v1", "/v1"], {
  "POST /abandoned-checkout/query": STAFF,
  "GET /abandoned-checkout/:id": STAFF,
  "POST /abandoned-checkouts/:id/add-activity": need("automations.manage"),
});

under(["/api/v1"], {
  "GET /abandoned-checkouts/summary": STAFF,
  "GET /automation-settings": STAFF,
  "PATCH /automation-settings": need("automations.manage"),
});

under(["/back-in-stock-service/v1/back-in-stock-notification-requests"], {
  "POST ": PUBLIC,
  "GET ": STAFF,
  "POST /query": STAFF,
  "POST /report-items-back-in-stock": need("automations.manage"),
  "GET /:id": STAFF,
  "DELETE /:id": need("automations.manage"),
});

under(["/wix-data/v2/items"], {
  "GET /query": PUBLIC,
  "POST /query": PUBLIC,
  "POST /update": need("cms.write"),
  "POST /remove": need("cms.write"),
  "GET /:id": PUBLIC,
  "POST ": need("cms.write"),
  "PUT /:id": need("cms.write"),
  "DELETE /:id": need("cms.write"),
});

under(["/v1/recommendations", "/ecom/v1/recommendations"], {
  "GET /algorithms": PUBLIC,
  "POST /get": PUBLIC,
});

/** Every API route (`METHOD /path`, as the app's route table names it) and what it needs. */
export const ROUTE_PERMISSIONS: Readonly<Record<string, RouteRule>> = rules;
