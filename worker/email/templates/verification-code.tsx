import { Code, EmailLayout, FinePrint, Greeting, Paragraph, greeting, plainText, type Shop } from "./layout";

export interface VerificationCodeData {
  code: string;
  name?: string;
  /** How long the code works, in minutes (default 15). */
  expiresInMinutes?: number;
}

const title = "Confirm your email";
const minutes = (data: VerificationCodeData) => data.expiresInMinutes ?? 15;

export const subject = (data: VerificationCodeData, shop: Shop) => `Your ${shop.storeName} verification code: ${data.code}`;

/** The code a new member types in to confirm their email (login state EMAIL_VERIFICATION_REQUIRED). */
export function VerificationCodeEmail({ data, shop }: { data: VerificationCodeData; shop: Shop }) {
  return (
    <EmailLayout shop={shop} title={title}>
      <Greeting name={data.name} />
      <Paragraph>Enter this code to confirm your email address:</Paragraph>
      <Code code={data.code} />
      <FinePrint>
        The code expires in {minutes(data)} minutes. If you did not ask for it, you can ignore this email: nothing changes without the code.
      </FinePrint>
    </EmailLayout>
  );
}

export const text = (data: VerificationCodeData, shop: Shop) =>
  plainText(shop, [
    greeting(data.name),
    `Enter this code to confirm your email address:\n\n    ${data.code}`,
    `The code expires in ${minutes(data)} minutes. If you did not ask for it, you can ignore this email: nothing changes without the code.`,
  ]);
