import { useEffect, useRef, useState } from "react";
import { Link, useFetcher, useFetchers } from "react-router";
import { Field, fieldId, Select, type Problem } from "#web/components/ui/form";
import type { CartView, LineView } from "./view";

/**
 * The cart's parts. Every control is a plain form posting an `intent` to /cart, so it works before and without
 * JavaScript (POST → redirect → GET). Once hydrated, the same forms go through fetchers: the page updates in
 * place, a removed line disappears at once, a new quantity shows while it is saved, and errors appear next to the
 * control that caused them.
 */

/** What the cart action answers (JSON for fetchers; the page's action data without JavaScript). */
export interface CartActionData {
  intent: string;
  lineItemId: string | null;
  problem: Problem | null;
  values?: Record<string, string>;
}

/** True once the page is hydrated (false during SSR and the first client render, so markup matches). */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

/** Tells the action the form came through a fetcher: answer with data instead of a redirect. */
export function JsFlag() {
  return useHydrated() ? <input type="hidden" name="_js" value="1" /> : null;
}

/** Lines being removed right now (hidden at once: the optimistic state). */
function usePendingRemovals(): Set<string> {
  const fetchers = useFetchers();
  const ids = new Set<string>();
  for (const f of fetchers) {
    if (f.formData?.get("intent") === "remove") ids.add(String(f.formData.get("lineItemId")));
  }
  return ids;
}

/** The problem for one control: from its fetcher (with JavaScript) or the page's action data (without). */
function problemFor(
  fetcherData: CartActionData | undefined,
  actionData: CartActionData | undefined,
  intent: string[],
  lineItemId: string | null = null,
) {
  for (const d of [fetcherData, actionData]) {
    if (d?.problem && intent.includes(d.intent) && (lineItemId === null || d.lineItemId === lineItemId)) return d.problem;
  }
  return null;
}

export function CartLines({ cart, actionData }: { cart: CartView; actionData?: CartActionData }) {
  const removing = usePendingRemovals();
  const lines = cart.lines.filter((l) => !removing.has(l.id));
  return (
    <ul className="cart-lines" aria-label="Items in your cart">
      {lines.map((line) => (
        <CartLine key={line.id} line={line} actionData={actionData} />
      ))}
    </ul>
  );
}

function CartLine({ line, actionData }: { line: LineView; actionData?: CartActionData }) {
  const qty = useFetcher<CartActionData>({ key: `qty-${line.id}` });
  const remove = useFetcher<CartActionData>({ key: `remove-${line.id}` });
  const fix = useFetcher<CartActionData>({ key: `fix-${line.id}` });
  const problem = problemFor(qty.data ?? fix.data, actionData, ["quantity"], line.id) ?? problemFor(remove.data, actionData, ["remove"], line.id);
  const pendingQty = qty.formData ? Number(qty.formData.get("quantity")) : null;
  const qtyId = fieldId(`quantity-${line.id}`);
  const busy = qty.state !== "idle" || fix.state !== "idle";
  return (
    <li className={`cart-line${busy ? " is-pending" : ""}`} aria-busy={busy || undefined}>
      <div className="cart-line-media">
        {line.image ? (
          <img src={line.image.url} alt={line.image.alt} width={96} height={96} loading="lazy" decoding="async" />
        ) : (
          <div className="cart-line-noimage" aria-hidden="true" />
        )}
      </div>
      <div className="cart-line-body">
        <LineDetails line={line} />
        {line.warning && <LineWarning line={line} warning={line.warning} id={`${qtyId}-warning`} remove={remove} fix={fix} />}
        <div className="cart-line-controls">
          <QuantityForm line={line} qty={qty} qtyId={qtyId} problem={problem} />
          <remove.Form method="post" action="/cart">
            <input type="hidden" name="intent" value="remove" />
            <input type="hidden" name="lineItemId" value={line.id} />
            <JsFlag />
            <button type="submit" className="link-button">
              Remove<span className="visually-hidden"> {line.name}</span>
            </button>
          </remove.Form>
        </div>
        {problem && (
          <p className="field-error" id={`${qtyId}-error`} role="alert">
            {problem.fields.quantity ?? problem.message}
          </p>
        )}
      </div>
      <p className="cart-line-total">
        <span className="visually-hidden">Line total: </span>
        {pendingQty !== null && pendingQty !== line.quantity ? <span className="muted">Updating…</span> : line.lineTotal}
      </p>
    </li>
  );
}

type LineFetcher = ReturnType<typeof useFetcher<CartActionData>>;

/** A line's name (linked to its product), chosen options and unit price. */
function LineDetails({ line }: { line: LineView }) {
  return (
    <>
      <h2 className="cart-line-name">{line.href ? <Link to={line.href}>{line.name}</Link> : line.name}</h2>
      {line.options.length > 0 && (
        <dl className="cart-line-options">
          {line.options.map((o) => (
            <div key={o.name}>
              <dt>{o.name}</dt>
              <dd>{o.value}</dd>
            </div>
          ))}
        </dl>
      )}
      <p className="cart-line-price">
        {line.fullUnitPrice && (
          <>
            <del>
              <span className="visually-hidden">Was </span>
              {line.fullUnitPrice}
            </del>{" "}
          </>
        )}
        <span>{line.unitPrice}</span> <span className="muted">each</span>
      </p>
    </>
  );
}

/** What is wrong with a line (sold out, fewer left), with the one-click fix: remove it, or change to what is left. */
function LineWarning({
  line,
  warning,
  id,
  remove,
  fix,
}: {
  line: LineView;
  warning: NonNullable<LineView["warning"]>;
  id: string;
  remove: LineFetcher;
  fix: LineFetcher;
}) {
  return (
    <div className={`line-warning ${warning.severity}`} id={id}>
      <p>{warning.message}</p>
      {warning.fix === "remove" && (
        <remove.Form method="post" action="/cart">
          <input type="hidden" name="intent" value="remove" />
          <input type="hidden" name="lineItemId" value={line.id} />
          <JsFlag />
          <button type="submit" className="button small">
            Remove it from the cart
          </button>
        </remove.Form>
      )}
      {warning.fix === "reduce" && line.quantityAvailable !== null && (
        <fix.Form method="post" action="/cart">
          <input type="hidden" name="intent" value="quantity" />
          <input type="hidden" name="lineItemId" value={line.id} />
          <input type="hidden" name="quantity" value={line.quantityAvailable} />
          <JsFlag />
          <button type="submit" className="button small">
            Change to {line.quantityAvailable}
          </button>
        </fix.Form>
      )}
    </div>
  );
}

/** A line's quantity: saved shortly after it is typed or stepped (with JavaScript), or with Update. */
function QuantityForm({ line, qty, qtyId, problem }: { line: LineView; qty: LineFetcher; qtyId: string; problem: Problem | null }) {
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const input = useRef<HTMLInputElement>(null);
  // A pending auto-save must not outlive the line (removed meanwhile) or post again after Update saved it: a stray
  // post of a removed line fails, and a failed action skips the revalidation another form (e.g. a coupon) awaits.
  useEffect(
    () => () => {
      if (timer.current) clearTimeout(timer.current);
    },
    [],
  );
  // The saved quantity can change from elsewhere (the "Change to N" fix, another tab); show it unless the shopper is typing.
  useEffect(() => {
    if (input.current && document.activeElement !== input.current) input.current.value = String(line.quantity);
  }, [line.quantity]);
  return (
    <qty.Form
      method="post"
      action="/cart"
      className="quantity-form"
      onSubmit={() => {
        if (timer.current) clearTimeout(timer.current);
      }}
      onChange={(e) => {
        // With JavaScript a new quantity is saved shortly after it is typed or stepped; Update stays for keyboards.
        const form = e.currentTarget;
        if (timer.current) clearTimeout(timer.current);
        timer.current = setTimeout(() => {
          if (form.checkValidity()) qty.submit(form);
        }, 400);
      }}
    >
      <input type="hidden" name="intent" value="quantity" />
      <input type="hidden" name="lineItemId" value={line.id} />
      <JsFlag />
      <label htmlFor={qtyId}>
        Quantity<span className="visually-hidden"> of {line.name}</span>
      </label>
      <input
        id={qtyId}
        name="quantity"
        type="number"
        inputMode="numeric"
        min={0}
        max={9999}
        required
        defaultValue={line.quantity}
        ref={input}
        aria-invalid={problem ? true : undefined}
        aria-describedby={[problem ? `${qtyId}-error` : null, line.warning ? `${qtyId}-warning` : null].filter(Boolean).join(" ") || undefined}
      />
      <button type="submit" className="button small secondary">
        Update<span className="visually-hidden"> quantity of {line.name}</span>
      </button>
    </qty.Form>
  );
}

export function CouponForm({ cart, actionData }: { cart: CartView; actionData?: CartActionData }) {
  const apply = useFetcher<CartActionData>({ key: "coupon" });
  const remove = useFetcher<CartActionData>({ key: "remove-coupon" });
  const problem = problemFor(apply.data, actionData, ["coupon"]);
  const id = fieldId("couponCode");
  const typed = apply.data?.values?.couponCode ?? actionData?.values?.couponCode;
  if (cart.coupon && remove.state === "idle") {
    return (
      <div className="coupon">
        <p>
          Coupon <strong>{cart.coupon.code}</strong>
          {cart.coupon.amount ? <> — you save {cart.coupon.amount}</> : null}
        </p>
        {cart.coupon.problem && <p className="field-error">{cart.coupon.problem}</p>}
        <remove.Form method="post" action="/cart">
          <input type="hidden" name="intent" value="remove-coupon" />
          <JsFlag />
          <button type="submit" className="link-button">
            Remove coupon<span className="visually-hidden"> {cart.coupon.code}</span>
          </button>
        </remove.Form>
      </div>
    );
  }
  return (
    <apply.Form method="post" action="/cart" className="coupon-form">
      <input type="hidden" name="intent" value="coupon" />
      <JsFlag />
      <div className="field">
        <label htmlFor={id}>Coupon code</label>
        <div className="inline-field">
          <input
            id={id}
            name="couponCode"
            type="text"
            autoComplete="off"
            autoCapitalize="characters"
            maxLength={100}
            required
            defaultValue={typed}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? `${id}-error` : undefined}
          />
          <button type="submit" className="button secondary" disabled={apply.state !== "idle"}>
            {apply.state !== "idle" ? "Applying…" : "Apply"}
          </button>
        </div>
        {problem && (
          <p className="field-error" id={`${id}-error`} role="alert">
            {problem.fields.couponCode ?? problem.message}
          </p>
        )}
      </div>
    </apply.Form>
  );
}

/** Where to estimate shipping and tax for: a country (and region), kept on the cart. */
export function EstimateForm({
  cart,
  countries,
  actionData,
}: {
  cart: CartView;
  countries: { code: string; name: string }[];
  actionData?: CartActionData;
}) {
  const fetcher = useFetcher<CartActionData>({ key: "estimate" });
  const problem = problemFor(fetcher.data, actionData, ["estimate"]);
  return (
    <fetcher.Form method="post" action="/cart" className="estimate-form">
      <input type="hidden" name="intent" value="estimate" />
      <JsFlag />
      <fieldset>
        <legend>Estimate shipping and tax</legend>
        <Select
          name="country"
          label="Country"
          options={countries.map((c) => [c.code, c.name] as const)}
          placeholder="Choose a country"
          required
          defaultValue={cart.shipping.country}
          autoComplete="country"
          problem={problem}
        />
        <Field
          name="subdivision"
          label="State or region (optional)"
          maxLength={50}
          defaultValue={cart.shipping.subdivision}
          autoComplete="address-level1"
        />
        <button type="submit" className="button secondary small" disabled={fetcher.state !== "idle"}>
          {fetcher.state !== "idle" ? "Estimating…" : "Estimate"}
        </button>
        {problem && !problem.fields.country && <p className="field-error">{problem.message}</p>}
      </fieldset>
    </fetcher.Form>
  );
}

export function CartSummary({ cart }: { cart: CartView }) {
  const s = cart.summary;
  const updating = useFetchers().some((f) => f.state !== "idle" && f.formAction?.startsWith("/cart"));
  return (
    <div className="summary" aria-busy={updating || undefined}>
      <h2>Order summary</h2>
      <dl className="totals" aria-live="polite">
        <div>
          <dt>Subtotal</dt>
          <dd>{s.subtotal}</dd>
        </div>
        {cart.discounts.map((d) => (
          <div key={d.label}>
            <dt>{d.label}</dt>
            <dd>−{d.amount}</dd>
          </div>
        ))}
        {cart.coupon?.amount && (
          <div>
            <dt>Coupon {cart.coupon.code}</dt>
            <dd>−{cart.coupon.amount}</dd>
          </div>
        )}
        <div>
          <dt>Shipping{cart.shipping.option ? <span className="muted"> ({cart.shipping.option.title})</span> : null}</dt>
          <dd>{cart.shipping.country ? (cart.shipping.option ? s.shipping : "Not available") : "Calculated at checkout"}</dd>
        </div>
        <div>
          <dt>Tax</dt>
          <dd>{cart.shipping.country ? s.tax : "Calculated at checkout"}</dd>
        </div>
        <div className="grand-total">
          <dt>{cart.shipping.country ? "Estimated total" : "Total before shipping"}</dt>
          <dd>{updating ? <span className="muted">Updating…</span> : s.total}</dd>
        </div>
      </dl>
    </div>
  );
}

/** The checkout button, or why it waits. */
export function CheckoutButton({ cart }: { cart: CartView }) {
  if (cart.blocked) {
    return (
      <p className="line-warning error" role="note">
        Some items cannot be bought as they are. Remove them (or lower the quantity) to check out.
      </p>
    );
  }
  return (
    <Link to="/checkout" className="button primary block">
      Check out
    </Link>
  );
}

/** The error of a form without its own place on the page (e.g. adding a product that sold out, without JavaScript). */
export function PageProblem({ actionData }: { actionData?: CartActionData }) {
  if (!actionData?.problem || !["add"].includes(actionData.intent)) return null;
  const p = actionData.problem;
  return (
    <div className="form-error" role="alert">
      <p>
        <strong>The item was not added.</strong> {p.message}
      </p>
    </div>
  );
}
