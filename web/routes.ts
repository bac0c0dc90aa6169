import { index, layout, route, type RouteConfig } from "@react-router/dev/routes";

export default [
  // Catalogue: browsing, search and product pages.
  index("routes/home.tsx"),
  route("shop", "routes/shop.tsx"),
  route("collections/:slug", "routes/collection.tsx"),
  route("search", "routes/search.tsx"),
  route("products/:slug", "routes/product.tsx"),
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
    route("staff", "routes/console/staff.tsx"),
    route("orders", "routes/console/orders.tsx"),
    route("orders/:orderId", "routes/console/order.tsx"),
    route("products", "routes/console/products.tsx"),
    route("products/export.csv", "routes/console/products-export.tsx"),
    route("products/import", "routes/console/products-import.tsx"),
    route("products/import/:jobId", "routes/console/products-import-job.tsx"),
    route("products/:id/media", "routes/console/product-media.tsx"),
    route("collections", "routes/console/collections.tsx"),
    route("collections/new", "routes/console/collection-new.tsx"),
    route("collections/:id", "routes/console/collection.tsx"),
    route("products/new", "routes/console/product-new.tsx"),
    route("products/:productId", "routes/console/product-edit.tsx"),
    route("inventory", "routes/console/inventory.tsx"),
    route("inventory/:productId", "routes/console/inventory-item.tsx"),
    route("automations", "routes/console/automations.tsx"),
    route("automations/carts/:id", "routes/console/automations-cart.tsx"),
    route("automations/emails", "routes/console/automations-emails.tsx"),
    route("automations/emails/:id", "routes/console/automations-email.tsx"),
    route("pricing", "routes/console/pricing-coupons.tsx"),
    route("pricing/coupons/:id", "routes/console/pricing-coupon.tsx"),
  ]),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
