import { data, Link, redirect } from "react-router";
import { clientOf } from "#web/auth.server";
import { sessionCookie, sessionTokensOf } from "#web/session.server";
import { HANDOVER_PARAM, redeemHandover } from "#worker/identity";
import {
  checkoutView,
  currentCheckout,
  hostedPayments,
  memberPrefill,
  placeOrder,
  saveContact,
  saveDelivery,
  waitText,
} from "#web/components/checkout/checkout.server";
import { CheckoutBrandHeader } from "#web/components/checkout/brand-header";
import { countries, privateHeaders, text } from "#web/components/checkout/form.server";
import { ErrorSummary, type Problem } from "#web/components/ui/form";
import { readForm } from "#web/components/ui/form.server";
import { ContactStep, DeliveryStep, PaymentStep, type StepName } from "#web/components/checkout/steps";
import { OrderSummary } from "#web/components/checkout/summary";
import type { CheckoutView } from "#web/components/checkout/view";
import "#web/styles/commerce.css";
import type { Route } from "./+types/checkout";

export function meta() {
  return [
    { title: "Checkout — Edge Storefront" },
    { name: "description", content: "Enter your details, choose delivery or pickup and pay to place your order." },
    { name: "robots", content: "noindex" },
  ];
}

export const headers = () => privateHeaders;

/** Redirect sessions for things this shop does not sell land here (see worker/identity/redirects.ts). */
const UNSOLD: Record<string, string> = { events: "event tickets", paidPlans: "paid plans", bookings: "bookings", bookingsBook: "bookings" };

/** The step to open: the one asked for when it can be reached, else the first one not done yet. */
function openStep(c: CheckoutView, asked: string | null): StepName {
  const contactDone = c.emailSaved && c.shippingSaved;
  if (asked === "contact" || !contactDone) return "contact";
  if (asked === "delivery" && c.physical && c.options.length > 0) return "delivery";
  return "payment";
}

/**
 * The checkout (made from the cart on first visit) is the page's critical data: one D1 batch with the cart (shared
 * with the root loader), plus the write that makes it on the first visit.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const url = new URL(request.url);
  const type = url.searchParams.get("type");
  if (type && UNSOLD[type]) return { kind: "unsupported" as const, what: UNSOLD[type] };
  const handover = url.searchParams.get(HANDOVER_PARAM);
  if (handover !== null) {
    // Arriving from a headless site: the link's credential starts this browser's session as the shopper who made
    // the checkout, once; the clean URL follows so a reload or the back button never shows the credential again.
    const checkoutId = url.searchParams.get("checkoutId");
    const started = await redeemHandover(ctx.env, ctx.db, handover, { intent: "checkout", checkoutId });
    if (!started) return data({ kind: "stale" as const }, { status: 410, headers: privateHeaders });
    throw redirect(`/checkout?checkoutId=${encodeURIComponent(checkoutId ?? "")}`, {
      headers: { ...privateHeaders, "Set-Cookie": sessionCookie(sessionTokensOf(started.tokens)) },
    });
  }
  // Back from the hosted payment page without paying: the order is placed and reserved; its page offers to pay.
  const canceled = url.searchParams.get("canceled");
  if (canceled) throw redirect(`/orders/${encodeURIComponent(canceled)}/confirmation`, { headers: privateHeaders });
  const state = await currentCheckout(ctx, url.searchParams.get("checkoutId"), clientOf(request));
  if (state.kind === "empty") return { kind: "empty" as const };
  if (state.kind === "limited") {
    const wait = String(state.retryAfterSeconds);
    return data(
      { kind: "limited" as const, wait: waitText(state.retryAfterSeconds) },
      { status: 429, headers: { ...privateHeaders, "Retry-After": wait } },
    );
  }
  if (state.kind === "blocked") throw redirect("/cart?blocked=1", { headers: privateHeaders });
  const checkout = checkoutView(state.checkout, await memberPrefill(ctx));
  return {
    kind: "ready" as const,
    checkout,
    step: openStep(checkout, url.searchParams.get("step")),
    countries: countries(),
    hosted: hostedPayments(ctx),
  };
}

interface CheckoutActionData {
  step: StepName;
  problem: Problem;
  values: Record<string, string>;
}

/** intent=contact | delivery | place-order. Success redirects to the next step (or the confirmation); errors stay on the step. */
export async function action({ request, context }: Route.ActionArgs) {
  const ctx = context.services;
  const form = await request.formData();
  const intent = text(form, "intent");
  const state = await currentCheckout(ctx, new URL(request.url).searchParams.get("checkoutId"), clientOf(request));
  if (state.kind === "empty") throw redirect("/cart", { headers: privateHeaders });
  if (state.kind === "limited") throw redirect("/checkout", { headers: privateHeaders });
  if (state.kind === "blocked") throw redirect("/cart?blocked=1", { headers: privateHeaders });
  const id = state.checkout.id;
  // A handed-over checkout keeps its id in the URL from step to step.
  const handed = new URL(request.url).searchParams.get("checkoutId") === id ? `&checkoutId=${encodeURIComponent(id)}` : "";
  // The security code is never sent back to the page.
  const values = readForm(form, ["cardCvc"]);
  const failed = (step: StepName, problem: Problem) => data<CheckoutActionData>({ step, problem, values }, { status: 400, headers: privateHeaders });

  if (intent === "contact") {
    const { problem } = await saveContact(ctx, id, form, state.read);
    if (problem) return failed("contact", problem);
    return redirect(`/checkout?step=delivery${handed}`, { headers: privateHeaders });
  }
  if (intent === "delivery") {
    const { problem } = await saveDelivery(ctx, id, form, state.read);
    if (problem) return failed("delivery", problem);
    return redirect(`/checkout?step=payment${handed}`, { headers: privateHeaders });
  }
  if (intent === "place-order") {
    const { orderId, redirectUrl, problem } = await placeOrder(ctx, checkoutView(state.checkout), form, state.read, clientOf(request));
    if (problem || !orderId) return failed("payment", problem ?? { message: "The order could not be placed.", fields: {} });
    // Paying online: on to Stripe's hosted page, which comes back to the confirmation page.
    if (redirectUrl) return redirect(redirectUrl, { headers: privateHeaders });
    return redirect(`/orders/${encodeURIComponent(orderId)}/confirmation`, { headers: privateHeaders });
  }
  return failed("contact", { message: "This form asked for something the checkout cannot do.", fields: {} });
}

export default function Checkout({ loaderData, actionData }: Route.ComponentProps) {
  if (loaderData.kind === "unsupported") {
    return (
      <main className="page commerce-page" id="main">
        <h1>Checkout</h1>
        <p>This shop does not sell {loaderData.what}.</p>
        <p>
          <Link to="/">Back to the shop</Link>
        </p>
      </main>
    );
  }
  if (loaderData.kind === "stale") {
    return (
      <main className="page commerce-page" id="main">
        <h1>Checkout</h1>
        <div className="empty-state" role="alert">
          <p>This checkout link has expired or has already been used.</p>
          <p>Links from another site to this checkout work once, for a few minutes. Go back to the site you came from and check out again.</p>
          <p>
            <Link to="/" className="button secondary">
              Go to the shop
            </Link>
          </p>
        </div>
      </main>
    );
  }
  if (loaderData.kind === "limited") {
    return (
      <main className="page commerce-page" id="main">
        <h1>Checkout</h1>
        <div className="empty-state" role="status">
          <p>You have started a lot of checkouts in a short time, so the shop is taking a short break before the next one.</p>
          <p>{`Your cart is saved. Please come back in ${loaderData.wait}.`}</p>
          <p>
            <Link to="/cart" className="button secondary">
              Back to your cart
            </Link>
          </p>
        </div>
      </main>
    );
  }
  if (loaderData.kind === "empty") {
    return (
      <main className="page commerce-page" id="main">
        <h1>Checkout</h1>
        <div className="empty-state">
          <p>Your cart is empty, so there is nothing to check out yet.</p>
          <p>
            <Link to="/" className="button primary">
              Continue shopping
            </Link>
          </p>
        </div>
      </main>
    );
  }
  const { checkout, countries } = loaderData;
  const failed = actionData as CheckoutActionData | undefined;
  const step = failed?.step ?? loaderData.step;
  const props = (name: StepName) => ({
    checkout,
    open: step === name,
    problem: failed?.step === name ? failed.problem : null,
    values: failed?.step === name ? failed.values : null,
  });
  return (
    <main className="page commerce-page" id="main">
      <CheckoutBrandHeader />
      <h1>Checkout</h1>
      <div className="commerce-layout">
        <div className="commerce-main">
          <ErrorSummary problem={failed?.problem} id="error-summary" />
          <ContactStep {...props("contact")} countries={countries} />
          <DeliveryStep {...props("delivery")} />
          <PaymentStep {...props("payment")} countries={countries} hosted={loaderData.hosted} />
        </div>
        <aside className="commerce-aside" aria-label="Your order">
          <OrderSummary lines={checkout.lines} totals={checkout.summary} coupon={checkout.coupon} />
          <p>
            <Link to="/cart">Edit your cart</Link>
          </p>
        </aside>
      </div>
    </main>
  );
}
