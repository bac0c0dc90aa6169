import { ActionLink, EmailLayout, FinePrint, Greeting, Paragraph, PlainLink, greeting, plainText, type Shop } from "./layout";

export interface ActivationLinkData {
  url: string;
  name?: string;
  /** How long the link works, in days (default 7). */
  expiresInDays?: number;
}

const title = "Activate your account";
const days = (data: ActivationLinkData) => data.expiresInDays ?? 7;

export const subject = (_data: ActivationLinkData, shop: Shop) => `Activate your ${shop.storeName} account`;

/** A one-time link to set the first password of an account someone else created (a staff invitation). */
export function ActivationLinkEmail({ data, shop }: { data: ActivationLinkData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>An account at {shop.storeName} was created for you. To start using it, set your password:</Paragraph>
      <ActionLink href={data.url}>Activate your account and set a password</ActionLink>
      <PlainLink href={data.url} />
      <FinePrint>The link works once and expires in {days(data)} days. If you did not expect this email, you can ignore it.</FinePrint>
    </EmailLayout>
  );
}

export const text = (data: ActivationLinkData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    `An account at ${shop.storeName} was created for you. To start using it, set your password here:\n\n${data.url}`,
    `The link works once and expires in ${days(data)} days. If you did not expect this email, you can ignore it.`,
  ]);
