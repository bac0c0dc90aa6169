import { ActionLink, EmailLayout, FinePrint, Greeting, Paragraph, PlainLink, greeting, plainText, type Shop } from "./layout";

export interface RecoveryLinkData {
  url: string;
  name?: string;
  /** How long the link works, in minutes (default 60). */
  expiresInMinutes?: number;
}

const title = "Reset your password";

function expiry(data: RecoveryLinkData): string {
  const m = data.expiresInMinutes ?? 60;
  return m % 60 === 0 ? `${m / 60} hour${m === 60 ? "" : "s"}` : `${m} minutes`;
}

export const subject = (_data: RecoveryLinkData, shop: Shop) => `Reset your ${shop.storeName} password`;

/** A one-time link to choose a new password (recovery). */
export function RecoveryLinkEmail({ data, shop }: { data: RecoveryLinkData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>Someone asked to reset the password of your {shop.storeName} account. If it was you, choose a new password:</Paragraph>
      <ActionLink href={data.url}>Choose a new password</ActionLink>
      <PlainLink href={data.url} />
      <FinePrint>
        The link works once and expires in {expiry(data)}. If you did not ask for it, ignore this email: your password stays as it is.
      </FinePrint>
    </EmailLayout>
  );
}

export const text = (data: RecoveryLinkData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    `Someone asked to reset the password of your ${shop.storeName} account. If it was you, choose a new password here:\n\n${data.url}`,
    `The link works once and expires in ${expiry(data)}. If you did not ask for it, ignore this email: your password stays as it is.`,
  ]);
