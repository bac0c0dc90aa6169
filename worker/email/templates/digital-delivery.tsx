import { EmailLayout, FinePrint, Greeting, Paragraph, greeting, plainText, type Shop } from "./layout";

export interface DigitalDeliveryData {
  orderNumber: string;
  name?: string;
  /** One signed link a digital line. */
  downloads: { name: string; fileName: string; url: string }[];
  /** When the links stop working, as the buyer reads it (e.g. "28 December 2026"). */
  expires: string;
  /** How many times each file may be downloaded. */
  limit: number;
}

const title = "Your downloads are ready";

export const subject = (data: DigitalDeliveryData, shop: Shop) => `Your downloads from ${shop.storeName} (order #${data.orderNumber})`;

const terms = (data: DigitalDeliveryData) =>
  `Each link works until ${data.expires}, for up to ${data.limit} download${data.limit === 1 ? "" : "s"}. You can also find them with your order.`;

/** Sent once to the buyer when an order with digital items is paid: one download link per digital line. */
export function DigitalDeliveryEmail({ data, shop }: { data: DigitalDeliveryData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>Thank you for your order #{data.orderNumber}. Your digital items are ready to download:</Paragraph>
      <ul style={{ margin: "0 0 16px", paddingLeft: 20 }}>
        {data.downloads.map((d) => (
          <li key={d.url} style={{ margin: "0 0 8px" }}>
            <a href={d.url} style={{ color: "#1f3a5f" }}>
              {d.name}
            </a>{" "}
            ({d.fileName})
          </li>
        ))}
      </ul>
      <FinePrint>{terms(data)}</FinePrint>
    </EmailLayout>
  );
}

export const text = (data: DigitalDeliveryData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    `Thank you for your order #${data.orderNumber}. Your digital items are ready to download:`,
    ...data.downloads.map((d) => `${d.name} (${d.fileName}): ${d.url}`),
    terms(data),
  ]);
