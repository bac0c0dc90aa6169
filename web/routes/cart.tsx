import { data, Link, redirect } from "react-router";
import { CART_INTENTS, loadCartView, returnAfterAdd, runCartIntent } from "#web/components/cart/cart.server";
import { CartLines, CartSummary, CheckoutButton, CouponForm, EstimateForm, PageProblem, type CartActionData } from "#web/components/cart/cart-ui";
import { countries, privateHeaders, text } from "#web/components/checkout/form.server";
import { readForm } from "#web/components/ui/form.server";
import "#web/styles/commerce.css";
import type { Route } from "./+types/cart";

/**
 * The cart may be crawled (Lighthouse's SEO audit covers it): a crawler has no session and sees the empty cart page
 * with its canonical URL; a shopper's own cart is never cached (private headers). Checkout and account stay out.
 */
export function meta({ data }: Route.MetaArgs) {
  return [
    { title: "Your cart — Edge Storefront" },
    { name: "description", content: "The items in your cart, with shipping, tax and discounts worked out before you check out." },
    ...(data ? [{ tagName: "link", rel: "canonical", href: data.canonical }] : []),
  ];
}

export const headers = () => privateHeaders;

/** The cart is the page's one critical read: lines, prices, coupon, shipping and tax in one D1 round trip (shared with the root loader). */
export async function loader({ request, context }: Route.LoaderArgs) {
  const cart = await loadCartView(context.services);
  const url = new URL(request.url);
  return {
    cart,
    canonical: `${url.origin}/cart`,
    countries: cart ? countries() : [],
    // Checkout sends the shopper back here when an item can no longer be bought.
    blocked: url.searchParams.get("blocked") === "1",
  };
}

/**
 * The cart's form intents: add (from product pages), quantity, remove, coupon, remove-coupon, estimate. Without
 * JavaScript a success redirects (to `returnTo?added=1` after an add, else back to /cart); fetchers (`_js=1`) get
 * data and the page revalidates in place. Errors answer 400 with the problem tied to its field.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const form = await request.formData();
  const intent = text(form, "intent");
  const lineItemId = text(form, "lineItemId") || null;
  const { problem } = await runCartIntent(context.services, CART_INTENTS.includes(intent as never) ? intent : "unknown", form);
  const answer: CartActionData = { intent, lineItemId, problem, values: problem ? readForm(form) : undefined };
  if (problem) return data(answer, { status: 400, headers: privateHeaders });
  if (form.get("_js") === "1") return data(answer, { headers: privateHeaders });
  if (intent === "add") {
    const back = returnAfterAdd(form);
    if (back) return redirect(back, { headers: privateHeaders });
  }
  return redirect("/cart", { headers: privateHeaders });
}

export default function Cart({ loaderData, actionData }: Route.ComponentProps) {
  const { cart, countries, blocked } = loaderData;
  const posted = actionData as CartActionData | undefined;
  return (
    <main className="page commerce-page" id="main">
      <h1>Your cart</h1>
      <PageProblem actionData={posted} />
      {blocked && cart?.blocked && (
        <div className="form-error" role="alert">
          <p>Some items in your cart can no longer be bought as they are. Fix them below to check out.</p>
        </div>
      )}
      {!cart || cart.lines.length === 0 ? (
        <div className="empty-state">
          <p>Your cart is empty.</p>
          <p>
            <Link to="/" className="button primary">
              Continue shopping
            </Link>
          </p>
        </div>
      ) : (
        <div className="commerce-layout">
          <section aria-labelledby="cart-items-title" className="commerce-main">
            <h2 id="cart-items-title" className="visually-hidden">
              Items
            </h2>
            <p className="muted">
              {cart.count} {cart.count === 1 ? "item" : "items"}
            </p>
            {/* Cart-wide notes of the pricing (e.g. no shipping to a region) matter once a destination is chosen. */}
            {(cart.shipping.country ? cart.general : []).map((g) => (
              <p key={g} className="line-warning warning">
                {g}
              </p>
            ))}
            <CartLines cart={cart} actionData={posted} />
          </section>
          <aside className="commerce-aside" aria-label="Order summary and checkout">
            <CartSummary cart={cart} />
            <CouponForm cart={cart} actionData={posted} />
            <EstimateForm cart={cart} countries={countries} actionData={posted} />
            <CheckoutButton cart={cart} />
            <p>
              <Link to="/">Continue shopping</Link>
            </p>
          </aside>
        </div>
      )}
    </main>
  );
}
