import type { SummaryLine, Totals as TotalsView } from "./view";

/** The items and totals of a checkout or an order, as the server priced them. */
export function OrderSummary({
  lines,
  totals,
  coupon,
  title = "Order summary",
  headingLevel = 2,
}: {
  lines: SummaryLine[];
  totals: TotalsView;
  coupon?: string | null;
  title?: string;
  headingLevel?: 2 | 3;
}) {
  const H = headingLevel === 2 ? "h2" : "h3";
  return (
    <div className="summary">
      <H>{title}</H>
      <ul className="summary-lines">
        {lines.map((l) => (
          <li key={l.id}>
            {l.image ? (
              <img src={l.image.url} alt={l.image.alt} width={56} height={56} loading="lazy" decoding="async" />
            ) : (
              <span className="summary-noimage" aria-hidden="true" />
            )}
            <div>
              <p className="summary-name">
                {l.name} <span className="muted">× {l.quantity}</span>
              </p>
              {l.options.length > 0 && <p className="muted small">{l.options.join(", ")}</p>}
              {l.problem && <p className="field-error">{l.problem}</p>}
            </div>
            <p className="summary-price">{l.total}</p>
          </li>
        ))}
      </ul>
      <Totals totals={totals} coupon={coupon} />
    </div>
  );
}

export function Totals({ totals, coupon }: { totals: TotalsView; coupon?: string | null }) {
  return (
    <dl className="totals">
      <div>
        <dt>Subtotal</dt>
        <dd>{totals.subtotal}</dd>
      </div>
      {totals.discount && (
        <div>
          <dt>Discount{coupon ? ` (${coupon})` : ""}</dt>
          <dd>−{totals.discount}</dd>
        </div>
      )}
      <div>
        <dt>Shipping</dt>
        <dd>{totals.shipping}</dd>
      </div>
      <div>
        <dt>Tax</dt>
        <dd>{totals.tax}</dd>
      </div>
      <div className="grand-total">
        <dt>Total</dt>
        <dd>{totals.total}</dd>
      </div>
    </dl>
  );
}
