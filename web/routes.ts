import { index, layout, route, type RouteConfig } from "@react-router/dev/routes";

export default [
  // Catalogue: browsing, search and product pages.
  index("routes/home.tsx"),
  route("shop", "routes/shop.tsx"),
  route("collections/:slug", "routes/collection.tsx"),
  route("search", "routes/search.tsx"),
  route("products/:slug", "routes/product.tsx"),
  // Content pages from the CMS (about, shipping and returns, privacy, terms).
  route("pages/:slug", "routes/content-page.tsx"),
  route("sitemap.xml", "routes/sitemap.tsx"),
  route("robots.txt", "routes/robots.tsx"),
  // Cart, checkout and the order confirmation.
  route("cart", "routes/cart.tsx"),
  route("checkout", "routes/checkout.tsx"),
  route("orders/:orderId/confirmation", "routes/order-confirmation.tsx"),
  // Member pages (plain forms; they call the identity services in-process).
  route("login", "routes/login.tsx"),
  route("register", "routes/register.tsx"),
  route("verify", "routes/verify.tsx"),
  route("forgot-password", "routes/forgot-password.tsx"),
  route("reset-password", "routes/reset-password.tsx"),
  route("logout", "routes/logout.tsx"),
  layout("routes/account.tsx", [
    route("account", "routes/account-info.tsx"),
    route("account/orders", "routes/account-orders.tsx"),
    route("account/orders/:orderId", "routes/account-order.tsx"),
  ]),
  // Links from emails: restore an abandoned cart; unsubscribe from marketing emails.
  route("cart/recover/:token", "routes/cart-recover.tsx"),
  route("email/unsubscribe", "routes/unsubscribe.tsx"),
  // The merchant console: its own sign-in and session (web/console.server.ts), then every section in one frame.
  route("console/login", "routes/console/login.tsx"),
  route("console/logout", "routes/console/logout.tsx"),
  route("console", "routes/console/layout.tsx", [
    index("routes/console/home.tsx"),
    // Search across products, orders, customers and collections (the header's search box).
    route("search", "routes/console/search.tsx"),
    // Orders.
    route("orders", "routes/console/orders/list.tsx"),
    route("orders/export.csv", "routes/console/orders/export.tsx"),
    route("orders/:orderId", "routes/console/orders/order.tsx"),
    route("orders/:orderId/print/:kind", "routes/console/orders/print.tsx"),
    route("customers", "routes/console/customers/list.tsx"),
    route("customers/export.csv", "routes/console/customers/export.tsx"),
    route("customers/:email", "routes/console/customers/customer.tsx"),
    route("reports", "routes/console/reports/list.tsx"),
    route("reports/export.csv", "routes/console/reports/export.tsx"),
    // Products: the list, bulk edits, CSV, media and the editor.
    route("products", "routes/console/products/list.tsx"),
    route("products/export.csv", "routes/console/products/export.tsx"),
    route("products/import", "routes/console/products/import.tsx"),
    route("products/import/:jobId", "routes/console/products/import-job.tsx"),
    route("products/:id/media", "routes/console/products/media.tsx"),
    route("products/:id/downloads", "routes/console/products/downloads.tsx"),
    route("products/new", "routes/console/products/new.tsx"),
    route("products/:productId", "routes/console/products/edit.tsx"),
    // Collections.
    route("collections", "routes/console/collections/list.tsx"),
    route("collections/new", "routes/console/collections/new.tsx"),
    route("collections/:id", "routes/console/collections/edit.tsx"),
    // Inventory.
    route("inventory", "routes/console/inventory/list.tsx"),
    route("inventory/:productId", "routes/console/inventory/item.tsx"),
    // Automations: abandoned carts, back in stock, emails, tasks.
    route("automations", "routes/console/automations/carts.tsx"),
    route("automations/carts/:id", "routes/console/automations/cart.tsx"),
    route("automations/emails", "routes/console/automations/emails.tsx"),
    route("automations/emails/:id", "routes/console/automations/email.tsx"),
    route("automations/back-in-stock", "routes/console/automations/back-in-stock.tsx"),
    route("automations/back-in-stock/item", "routes/console/automations/back-in-stock-item.tsx"),
    route("automations/tasks", "routes/console/automations/tasks.tsx"),
    // Pricing: coupons, discounts, shipping, tax, fees.
    route("pricing", "routes/console/pricing/coupons.tsx"),
    route("pricing/coupons/:id", "routes/console/pricing/coupon.tsx"),
    route("pricing/discounts", "routes/console/pricing/discounts.tsx"),
    route("pricing/discounts/:id", "routes/console/pricing/discount.tsx"),
    route("pricing/shipping", "routes/console/pricing/shipping.tsx"),
    route("pricing/shipping/:id", "routes/console/pricing/shipping-region.tsx"),
    route("pricing/tax", "routes/console/pricing/tax.tsx"),
    route("pricing/tax/regions/:id", "routes/console/pricing/tax-region.tsx"),
    route("pricing/tax/groups", "routes/console/pricing/tax-groups.tsx"),
    route("pricing/tax/groups/:id", "routes/console/pricing/tax-group.tsx"),
    route("pricing/fees", "routes/console/pricing/fees.tsx"),
    route("pricing/fees/:id", "routes/console/pricing/fee.tsx"),
    // Webhooks and dead events.
    route("webhooks", "routes/console/webhooks/list.tsx"),
    route("webhooks/sources/:id", "routes/console/webhooks/source.tsx"),
    route("webhooks/subscriptions/:id", "routes/console/webhooks/subscription.tsx"),
    route("events", "routes/console/webhooks/events.tsx"),
    // Content: the CMS's pages and the shop's menus.
    route("content", "routes/console/content/list.tsx"),
    route("content/pages/:id", "routes/console/content/page.tsx"),
    route("content/menus/:slug", "routes/console/content/menu.tsx"),
    // Settings: the store, staff, API keys, members, sign-up rules.
    route("staff", "routes/console/settings/staff.tsx"),
    route("settings", "routes/console/settings/store.tsx"),
    route("settings/api-keys", "routes/console/settings/api-keys.tsx"),
    route("settings/members", "routes/console/settings/members.tsx"),
    route("settings/identity", "routes/console/settings/identity.tsx"),
    route("settings/payments", "routes/console/settings/payments.tsx"),
    route("settings/headless", "routes/console/settings/headless.tsx"),
    route("*", "routes/console/not-found.tsx"),
  ]),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
