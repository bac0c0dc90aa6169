import { EmailLayout, FinePrint, Greeting, Paragraph, greeting, plainText, type Shop } from "./layout";

export interface OrderConfirmationData {
  orderNumber: string;
  orderId: string;
  name?: string;
  /** Amounts as decimal strings in `currency`. */
  lines: { name: string; quantity: number; total: string }[];
  subtotal: string;
  shipping: string;
  tax: string;
  discount: string;
  total: string;
  currency: string;
  /** Paid by card (true) or to be paid offline (false). */
  paid: boolean;
}

const title = "Thank you for your order";

export const subject = (data: OrderConfirmationData, shop: Shop) => `Your ${shop.storeName} order #${data.orderNumber} is confirmed`;

const payment = (data: OrderConfirmationData) =>
  data.paid ? "Your payment was received." : "Your order will be paid offline: we will be in touch about the payment.";

/** Sent to the buyer when an order is placed. */
export function OrderConfirmationEmail({ data, shop }: { data: OrderConfirmationData; shop: Shop }) {
  const cell = { padding: "4px 8px", borderBottom: "1px solid #eee" } as const;
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>
        We received your order #{data.orderNumber}. {payment(data)}
      </Paragraph>
      <table role="presentation" cellPadding={0} cellSpacing={0} style={{ width: "100%", borderCollapse: "collapse", fontSize: 14 }}>
        <tbody>
          {data.lines.map((l, i) => (
            <tr key={i}>
              <td style={cell}>
                {l.quantity} × {l.name}
              </td>
              <td style={{ ...cell, textAlign: "right" }}>
                {l.total} {data.currency}
              </td>
            </tr>
          ))}
          <tr>
            <td style={cell}>Subtotal</td>
            <td style={{ ...cell, textAlign: "right" }}>
              {data.subtotal} {data.currency}
            </td>
          </tr>
          {data.discount !== "0" && data.discount !== "0.00" ? (
            <tr>
              <td style={cell}>Discount</td>
              <td style={{ ...cell, textAlign: "right" }}>
                -{data.discount} {data.currency}
              </td>
            </tr>
          ) : null}
          <tr>
            <td style={cell}>Shipping</td>
            <td style={{ ...cell, textAlign: "right" }}>
              {data.shipping} {data.currency}
            </td>
          </tr>
          <tr>
            <td style={cell}>Tax</td>
            <td style={{ ...cell, textAlign: "right" }}>
              {data.tax} {data.currency}
            </td>
          </tr>
          <tr>
            <td style={{ ...cell, fontWeight: 700 }}>Total</td>
            <td style={{ ...cell, textAlign: "right", fontWeight: 700 }}>
              {data.total} {data.currency}
            </td>
          </tr>
        </tbody>
      </table>
      <FinePrint>Order reference: {data.orderId}</FinePrint>
    </EmailLayout>
  );
}

export const text = (data: OrderConfirmationData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    `We received your order #${data.orderNumber}. ${payment(data)}`,
    [
      ...data.lines.map((l) => `${l.quantity} x ${l.name}: ${l.total} ${data.currency}`),
      `Subtotal: ${data.subtotal} ${data.currency}`,
      ...(data.discount !== "0" && data.discount !== "0.00" ? [`Discount: -${data.discount} ${data.currency}`] : []),
      `Shipping: ${data.shipping} ${data.currency}`,
      `Tax: ${data.tax} ${data.currency}`,
      `Total: ${data.total} ${data.currency}`,
    ].join("\n"),
    `Order reference: ${data.orderId}`,
  ]);
