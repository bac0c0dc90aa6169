import { ItemList, itemLines, ActionLink, EmailLayout, FinePrint, Greeting, Paragraph, PlainLink, greeting, plainText, type Shop } from "./layout";

export interface OrderShippedData {
  orderNumber: string;
  orderId: string;
  name?: string;
  /** What left in this shipment. */
  lines: { name: string; quantity: number }[];
  carrier?: string | null;
  trackingNumber?: string | null;
  /** An http(s) link to follow the parcel. */
  trackingLink?: string | null;
  /** More of the order is still to come. */
  partial: boolean;
}

const title = "Your order is on its way";

export const subject = (data: OrderShippedData, shop: Shop) =>
  `Your ${shop.storeName} order #${data.orderNumber} ${data.partial ? "has partly shipped" : "has shipped"}`;

const tracking = (data: OrderShippedData) => {
  const parts = [data.carrier ? `Carrier: ${data.carrier}` : "", data.trackingNumber ? `Tracking number: ${data.trackingNumber}` : ""].filter(
    Boolean,
  );
  return parts.length ? `${parts.join(". ")}.` : "";
};

const rest = (data: OrderShippedData) => (data.partial ? "The rest of your order will follow in another shipment." : "");

/** Sent to the buyer once per shipment of an order, with its carrier and tracking link. */
export function OrderShippedEmail({ data, shop }: { data: OrderShippedData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>Good news: items from your order #{data.orderNumber} have left us.</Paragraph>
      <ItemList lines={data.lines} />
      {tracking(data) ? <Paragraph>{tracking(data)}</Paragraph> : null}
      {data.trackingLink ? (
        <>
          <ActionLink href={data.trackingLink}>Track your parcel</ActionLink>
          <PlainLink href={data.trackingLink} />
        </>
      ) : null}
      {data.partial ? <Paragraph>{rest(data)}</Paragraph> : null}
      <FinePrint>You get this email because you placed an order at {shop.storeName}.</FinePrint>
    </EmailLayout>
  );
}

export const text = (data: OrderShippedData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    `Good news: items from your order #${data.orderNumber} have left us.`,
    itemLines(data.lines),
    ...(tracking(data) ? [tracking(data)] : []),
    ...(data.trackingLink ? [`Track your parcel: ${data.trackingLink}`] : []),
    ...(data.partial ? [rest(data)] : []),
    `You get this email because you placed an order at ${shop.storeName}.`,
  ]);
