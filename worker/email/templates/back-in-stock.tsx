import { ActionLink, EmailLayout, FinePrint, Greeting, Paragraph, PlainLink, greeting, plainText, type Shop } from "./layout";

export interface BackInStockData {
  item: { name: string; price?: string | null; imageUrl?: string | null; options?: string | null };
  /** The product page. */
  itemUrl: string;
  /** Filled in by sendEmail for marketing emails. */
  unsubscribeUrl?: string;
}

const title = "It's back in stock";

export const subject = (data: BackInStockData, shop: Shop) => `${data.item.name} is back in stock at ${shop.storeName}`;

const line = (data: BackInStockData) =>
  `${data.item.name}${data.item.options ? ` (${data.item.options})` : ""} is back in stock${data.item.price ? `: ${data.item.price}` : "."}`;

/** Sent once to a shopper who asked to hear when an item is back in stock. */
export function BackInStockEmail({ data, shop }: { data: BackInStockData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting />
      <Paragraph>Good news: the item you asked about is available again.</Paragraph>
      {data.item.imageUrl ? (
        <p style={{ margin: "0 0 16px" }}>
          <img src={data.item.imageUrl} alt={data.item.name} width={240} style={{ display: "block", maxWidth: "100%", borderRadius: 8 }} />
        </p>
      ) : null}
      <Paragraph>
        <strong>{data.item.name}</strong>
        {data.item.options ? ` (${data.item.options})` : ""}
        {data.item.price ? ` · ${data.item.price}` : ""}
      </Paragraph>
      <ActionLink href={data.itemUrl}>See it in the shop</ActionLink>
      <PlainLink href={data.itemUrl} />
      <FinePrint>
        We sent this once because you asked to be told when it was back.
        {data.unsubscribeUrl ? (
          <>
            {" "}
            <a href={data.unsubscribeUrl} style={{ color: "#1f3a5f" }}>
              Unsubscribe
            </a>{" "}
            from {shop.storeName}'s marketing emails.
          </>
        ) : null}
      </FinePrint>
    </EmailLayout>
  );
}

export const text = (data: BackInStockData, shop: Shop) =>
  plainText(shop, [
    greeting(),
    line(data),
    `See it in the shop: ${data.itemUrl}`,
    "We sent this once because you asked to be told when it was back.",
    ...(data.unsubscribeUrl ? [`Unsubscribe: ${data.unsubscribeUrl}`] : []),
  ]);
