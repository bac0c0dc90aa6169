import { ActionLink, EmailLayout, FinePrint, Greeting, Paragraph, PlainLink, greeting, plainText, type Shop } from "./layout";

export interface AbandonedCartData {
  name?: string;
  /** The cart's items as the shopper left them; prices already formatted in the store's currency. */
  items: { name: string; quantity: number; price: string; imageUrl?: string | null; options?: string }[];
  total: string;
  /** /cart/recover/<token>: puts the cart back in the shopper's browser. */
  recoveryUrl: string;
  /** Which reminder this is (1 for the first). */
  step: number;
  /** Filled in by sendEmail for marketing emails. */
  unsubscribeUrl?: string;
}

const title = (data: AbandonedCartData) => (data.step <= 1 ? "You left something in your cart" : "Your cart is still waiting");

export const subject = (data: AbandonedCartData, shop: Shop) =>
  data.step <= 1 ? `You left something in your ${shop.storeName} cart` : `Still thinking it over? Your ${shop.storeName} cart is saved`;

const intro = "We saved the items in your cart. They are ready when you are:";

/** Sent by the abandoned-cart automation: the cart's items and a link that restores the cart. */
export function AbandonedCartEmail({ data, shop }: { data: AbandonedCartData; shop: Shop }) {
  const cell = { padding: "8px", borderBottom: "1px solid #eee", verticalAlign: "middle" } as const;
  return (
    <EmailLayout shop={shop} title={title(data)}>
      <Greeting name={data.name} />
      <Paragraph>{intro}</Paragraph>
      <table role="presentation" cellPadding={0} cellSpacing={0} style={{ width: "100%", borderCollapse: "collapse", fontSize: 14 }}>
        <tbody>
          {data.items.map((item, i) => (
            <tr key={i}>
              <td style={{ ...cell, width: 64 }}>
                {item.imageUrl ? (
                  <img src={item.imageUrl} alt={item.name} width={56} height={56} style={{ display: "block", borderRadius: 6, objectFit: "cover" }} />
                ) : null}
              </td>
              <td style={cell}>
                {item.quantity} × {item.name}
                {item.options ? <div style={{ color: "#4f535a" }}>{item.options}</div> : null}
              </td>
              <td style={{ ...cell, textAlign: "right" }}>{item.price}</td>
            </tr>
          ))}
          <tr>
            <td style={cell} />
            <td style={{ ...cell, fontWeight: 700 }}>Total</td>
            <td style={{ ...cell, textAlign: "right", fontWeight: 700 }}>{data.total}</td>
          </tr>
        </tbody>
      </table>
      <ActionLink href={data.recoveryUrl}>Return to your cart</ActionLink>
      <PlainLink href={data.recoveryUrl} />
      {data.unsubscribeUrl ? (
        <FinePrint>
          You get this email because you left items in your cart at {shop.storeName}.{" "}
          <a href={data.unsubscribeUrl} style={{ color: "#1f3a5f" }}>
            Unsubscribe
          </a>{" "}
          from these reminders.
        </FinePrint>
      ) : null}
    </EmailLayout>
  );
}

export const text = (data: AbandonedCartData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    intro,
    [...data.items.map((i) => `${i.quantity} x ${i.name}${i.options ? ` (${i.options})` : ""}: ${i.price}`), `Total: ${data.total}`].join("\n"),
    `Return to your cart: ${data.recoveryUrl}`,
    ...(data.unsubscribeUrl ? [`Unsubscribe from these reminders: ${data.unsubscribeUrl}`] : []),
  ]);
