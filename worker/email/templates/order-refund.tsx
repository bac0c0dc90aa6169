import { EmailLayout, FinePrint, Greeting, ItemList, Paragraph, greeting, itemLines, plainText, type Shop } from "./layout";

export interface OrderRefundData {
  orderNumber: string;
  orderId: string;
  name?: string;
  /** The amount given back and the total refunded so far, as decimal strings in `currency`. */
  amount: string;
  totalRefunded: string;
  currency: string;
  /** The items refunded (none when the refund is of an amount only). */
  lines: { name: string; quantity: number }[];
  /** Everything paid has now been refunded. */
  full: boolean;
}

export const subject = (data: OrderRefundData, shop: Shop) => `Your ${shop.storeName} order #${data.orderNumber} was refunded`;

const summary = (data: OrderRefundData) =>
  `We refunded ${data.amount} ${data.currency} for your order #${data.orderNumber}${data.full ? ", the whole amount you paid" : ""}. ` +
  "It goes back to the card or account you paid with; your bank may take a few days to show it.";

/** Sent to the buyer once for each refund of their order: the amount and the items refunded. */
export function OrderRefundEmail({ data, shop }: { data: OrderRefundData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title="Your refund">
      <Greeting name={data.name} />
      <Paragraph>{summary(data)}</Paragraph>
      {data.lines.length > 0 && <ItemList lines={data.lines} />}
      <Paragraph>
        Refunded so far: {data.totalRefunded} {data.currency}
      </Paragraph>
      <FinePrint>Order reference: {data.orderId}</FinePrint>
    </EmailLayout>
  );
}

export const text = (data: OrderRefundData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    summary(data),
    ...(data.lines.length ? [itemLines(data.lines)] : []),
    `Refunded so far: ${data.totalRefunded} ${data.currency}`,
    `Order reference: ${data.orderId}`,
  ]);
