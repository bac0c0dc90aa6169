import { Form, Link, useNavigation } from "react-router";
import { AddressFields, type AddressValues } from "./fields";
import { Field, fieldId, type Problem } from "#web/components/ui/form";
import type { CheckoutView } from "./view";

/**
 * The three checkout steps. Each is a plain form posting an `intent` to /checkout: it works without JavaScript
 * (POST → redirect to the next step), and with it React Router submits in place and shows the pending state. The
 * open step shows its form; a finished one shows what was entered and a link to change it.
 */

export type StepName = "contact" | "delivery" | "payment";

interface StepProps {
  checkout: CheckoutView;
  open: boolean;
  problem: Problem | null;
  /** What the shopper typed in the failed submit (wins over saved values). */
  values: Record<string, string> | null;
}

function Step({
  n,
  name,
  title,
  open,
  done,
  summary,
  children,
}: {
  n: number;
  name: StepName;
  title: string;
  open: boolean;
  done: boolean;
  summary?: React.ReactNode;
  children: React.ReactNode;
}) {
  const titleId = `step-${name}-title`;
  return (
    <section className={`step${open ? " is-open" : ""}${done ? " is-done" : ""}`} aria-labelledby={titleId}>
      <div className="step-head">
        <h2 id={titleId}>
          <span className="step-number" aria-hidden="true">
            {n}
          </span>{" "}
          {title}
          {done && !open && <span className="visually-hidden"> (done)</span>}
        </h2>
        {done && !open && (
          <Link to={`/checkout?step=${name}`} className="step-change">
            Change<span className="visually-hidden"> {title.toLowerCase()}</span>
          </Link>
        )}
      </div>
      {open ? children : done ? <div className="step-summary">{summary}</div> : null}
    </section>
  );
}

function usePending(intent: string): boolean {
  const nav = useNavigation();
  return nav.state !== "idle" && nav.formData?.get("intent") === intent;
}

function addressLines(a: AddressValues, countries: { code: string; name: string }[]): string[] {
  return [
    [a.firstName, a.lastName].filter(Boolean).join(" "),
    [a.addressLine, a.addressLine2].filter(Boolean).join(", "),
    [a.postalCode, a.city, a.subdivision].filter(Boolean).join(" "),
    countries.find((c) => c.code === a.country)?.name ?? a.country ?? "",
  ].filter(Boolean);
}

function pick(values: Record<string, string> | null, prefix: string, fallback: AddressValues): AddressValues {
  if (!values) return fallback;
  const out: AddressValues = {};
  for (const k of ["firstName", "lastName", "phone", "addressLine", "addressLine2", "city", "postalCode", "country", "subdivision"] as const)
    out[k] = values[`${prefix}.${k}`] ?? "";
  return out;
}

export function ContactStep({ checkout, open, problem, values, countries }: StepProps & { countries: { code: string; name: string }[] }) {
  const pending = usePending("contact");
  const done = checkout.emailSaved && checkout.shippingSaved;
  return (
    <Step
      n={1}
      name="contact"
      title="Contact and shipping address"
      open={open}
      done={done}
      summary={
        <>
          <p>{checkout.email}</p>
          <address>
            {addressLines(checkout.shipping, countries).map((l) => (
              <span key={l}>
                {l}
                <br />
              </span>
            ))}
          </address>
        </>
      }
    >
      <Form method="post" action="/checkout?step=contact" className="checkout-form" noValidate={false}>
        <input type="hidden" name="intent" value="contact" />
        <Field
          name="email"
          label="Email"
          type="email"
          autoComplete="email"
          required
          maxLength={254}
          defaultValue={values?.email ?? checkout.email}
          hint="We send the order confirmation here."
          problem={problem}
        />
        <fieldset>
          <legend>Shipping address</legend>
          <AddressFields prefix="ship" values={pick(values, "ship", checkout.shipping)} countries={countries} problem={problem} />
        </fieldset>
        <button type="submit" className="button primary" disabled={pending}>
          {pending ? "Saving…" : "Continue to delivery"}
        </button>
      </Form>
    </Step>
  );
}

export function DeliveryStep({ checkout, open, problem, values }: StepProps) {
  const pending = usePending("delivery");
  const available = checkout.options.length > 0;
  const chosen = values?.shippingOption ?? checkout.selectedCode;
  const error = problem?.fields.shippingOption;
  const done = checkout.emailSaved && checkout.shippingSaved;
  return (
    <Step
      n={2}
      name="delivery"
      title="Delivery method"
      open={open}
      done={done}
      summary={
        <p>
          {!checkout.physical
            ? "Nothing to ship: digital items only."
            : checkout.selectedTitle
              ? `${checkout.selectedTitle} — ${checkout.summary.shipping}`
              : "No delivery options for this address."}
        </p>
      }
    >
      {!checkout.physical ? (
        <p>Nothing to ship: your order holds digital items only.</p>
      ) : !available ? (
        <div className="line-warning warning">
          <p>We have no delivery or pickup options for this address yet. You can still place the order: the shop will contact you about delivery.</p>
          <p>
            <Link to="/checkout?step=payment">Continue to payment</Link>
          </p>
        </div>
      ) : (
        <Form method="post" action="/checkout?step=delivery" className="checkout-form">
          <input type="hidden" name="intent" value="delivery" />
          <fieldset className="pick-group" id={fieldId("shippingOption")} tabIndex={-1} aria-describedby={error ? "shippingOption-error" : undefined}>
            <legend>How do you want to get your order?</legend>
            {error && (
              <p className="field-error" id="shippingOption-error">
                {error}
              </p>
            )}
            {checkout.options.map((o) => (
              <div className="pick" key={o.code}>
                <input type="radio" name="shippingOption" id={`ship-${o.code}`} value={o.code} defaultChecked={o.code === chosen} required />
                <label htmlFor={`ship-${o.code}`}>
                  <span className="pick-title">
                    {o.title} <span className="badge">{o.kind === "pickup" ? "Pickup" : "Delivery"}</span>
                  </span>
                  {o.detail && <span className="pick-detail">{o.detail}</span>}
                  <span className="pick-price">{o.price}</span>
                </label>
              </div>
            ))}
          </fieldset>
          <button type="submit" className="button primary" disabled={pending}>
            {pending ? "Saving…" : "Continue to payment"}
          </button>
        </Form>
      )}
    </Step>
  );
}

/** The local test provider's card fields (no Stripe keys): the test cards it takes are listed. */
function TestCardFields({ payment, values, problem }: { payment: string; values: Record<string, string> | null; problem: Problem | null }) {
  return (
    <>
      <div className="pick">
        <input type="radio" name="payment" id="pay-card" value="card" defaultChecked={payment === "card"} />
        <label htmlFor="pay-card">
          <span className="pick-title">Credit or debit card</span>
        </label>
      </div>
      <div className="card-fields">
        <p className="hint" id="card-test-hint">
          Test payments: card 4242 4242 4242 4242 is approved, 4000 0000 0000 0002 is declined. Use any future expiry date and any 3 digits.
        </p>
        <Field
          name="cardNumber"
          label="Card number"
          inputMode="numeric"
          autoComplete="cc-number"
          maxLength={23}
          defaultValue={values?.cardNumber}
          problem={problem}
          className="wide"
        />
        <Field
          name="cardExpiry"
          label="Expiry date (MM/YY)"
          autoComplete="cc-exp"
          placeholder="MM/YY"
          maxLength={7}
          defaultValue={values?.cardExpiry}
          problem={problem}
        />
        <Field name="cardCvc" label="Security code" inputMode="numeric" autoComplete="cc-csc" maxLength={4} problem={problem} />
      </div>
    </>
  );
}

/** The payment step; `hosted`: cards are paid on Stripe's page, so no card field is ever shown. */
export function PaymentStep({
  checkout,
  open,
  problem,
  values,
  countries,
  hosted,
}: StepProps & { countries: { code: string; name: string }[]; hosted: boolean }) {
  const pending = usePending("place-order");
  const billingSame = values ? values.billingSame !== "no" : checkout.billingSame;
  const payment = values?.payment ?? (hosted ? "online" : "card");
  const paymentError = problem?.fields.payment;
  return (
    <Step n={3} name="payment" title="Payment and review" open={open} done={false}>
      <Form method="post" action="/checkout?step=payment" className="checkout-form">
        <input type="hidden" name="intent" value="place-order" />
        <fieldset className="pick-group billing">
          <legend>Billing address</legend>
          <div className="pick">
            <input type="radio" name="billingSame" id="billing-same" value="yes" defaultChecked={billingSame} />
            <label htmlFor="billing-same">Same as the shipping address</label>
          </div>
          <div className="pick">
            <input type="radio" name="billingSame" id="billing-other" value="no" defaultChecked={!billingSame} />
            <label htmlFor="billing-other">Use a different billing address</label>
          </div>
          <div className="billing-fields">
            <AddressFields
              prefix="bill"
              values={pick(values, "bill", checkout.billingSame ? {} : checkout.billing)}
              countries={countries}
              problem={problem}
              required={false}
              withPhone={false}
            />
          </div>
        </fieldset>
        <fieldset className="pick-group payment" id={fieldId("payment")} tabIndex={-1} aria-describedby={paymentError ? "payment-error" : undefined}>
          <legend>Payment method</legend>
          {paymentError && (
            <p className="field-error" id="payment-error">
              {paymentError}
            </p>
          )}
          {hosted ? (
            <div className="pick">
              <input type="radio" name="payment" id="pay-online" value="online" defaultChecked={payment === "online"} />
              <label htmlFor="pay-online">
                <span className="pick-title">Credit or debit card</span>
                <span className="pick-detail">You pay on Stripe's secure payment page; this shop never sees your card number.</span>
              </label>
            </div>
          ) : (
            <TestCardFields payment={payment} values={values} problem={problem} />
          )}
          <div className="pick">
            <input type="radio" name="payment" id="pay-offline" value="offline" defaultChecked={payment === "offline"} />
            <label htmlFor="pay-offline">
              <span className="pick-title">Pay offline</span>
              <span className="pick-detail">Bank transfer or cash on pickup. The order is placed now and paid later.</span>
            </label>
          </div>
        </fieldset>
        <div className="review">
          <h3>Review</h3>
          <p>
            {checkout.physical && checkout.selectedTitle ? (
              <>
                <strong>{checkout.selectedTitle}</strong>.{" "}
              </>
            ) : null}
            The confirmation goes to <strong>{checkout.email || "—"}</strong>. You pay <strong>{checkout.summary.total}</strong>.
          </p>
          {problem?.code === "LINE_ITEMS_NOT_AVAILABLE" && (
            <p>
              <Link to="/cart">Update your cart</Link>
            </p>
          )}
        </div>
        <button type="submit" className="button primary block" disabled={pending || !checkout.emailSaved || !checkout.shippingSaved}>
          {pending ? "Placing your order…" : `Place order · ${checkout.summary.total}`}
        </button>
        {(!checkout.emailSaved || !checkout.shippingSaved) && <p className="hint">Fill in your contact and shipping address first.</p>}
      </Form>
    </Step>
  );
}
