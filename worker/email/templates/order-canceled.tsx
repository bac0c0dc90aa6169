import { ItemList, itemLines, EmailLayout, FinePrint, Greeting, Paragraph, greeting, plainText, type Shop } from "./layout";

export interface OrderCanceledData {
  orderNumber: string;
  orderId: string;
  name?: string;
  lines: { name: string; quantity: number }[];
  /** Decimal string in `currency`. */
  total: string;
  currency: string;
  /** The order was canceled because it was not paid in time. */
  unpaid: boolean;
  /** The buyer had paid: the money comes back as a refund. */
  paid: boolean;
}

const title = "Your order was canceled";

export const subject = (data: OrderCanceledData, shop: Shop) => `Your ${shop.storeName} order #${data.orderNumber} was canceled`;

const why = (data: OrderCanceledData) =>
  data.unpaid ? `Your order #${data.orderNumber} was canceled because it was not paid in time.` : `Your order #${data.orderNumber} was canceled.`;

const money = (data: OrderCanceledData) =>
  data.paid ? `You paid ${data.total} ${data.currency}; we will refund you.` : "You were not charged for it.";

/** Sent to the buyer once when their order is canceled. */
export function OrderCanceledEmail({ data, shop }: { data: OrderCanceledData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>{why(data)}</Paragraph>
      <ItemList lines={data.lines} />
      <Paragraph>{money(data)}</Paragraph>
      <FinePrint>Questions? Reply to this email and {shop.storeName} will help.</FinePrint>
    </EmailLayout>
  );
}

export const text = (data: OrderCanceledData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    why(data),
    itemLines(data.lines),
    money(data),
    `Questions? Reply to this email and ${shop.storeName} will help.`,
  ]);
