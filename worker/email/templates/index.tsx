import type { ReactElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import * as abandonedCart from "./abandoned-cart";
import * as activationLink from "./activation-link";
import * as backInStock from "./back-in-stock";
import * as digitalDelivery from "./digital-delivery";
import type { Shop } from "./layout";
import * as orderCanceled from "./order-canceled";
import * as orderConfirmation from "./order-confirmation";
import * as orderRefund from "./order-refund";
import * as orderShipped from "./order-shipped";
import * as recoveryLink from "./recovery-link";
import * as verificationCode from "./verification-code";

/**
 * Email templates: React components rendered to static HTML (React escapes every value), each with its subject
 * and a plain-text alternative written alongside, so both parts say the same thing.
 */

export type { Shop } from "./layout";

/** The data each template takes. */
export interface EmailData {
  "verification-code": verificationCode.VerificationCodeData;
  "recovery-link": recoveryLink.RecoveryLinkData;
  "activation-link": activationLink.ActivationLinkData;
  "order-confirmation": orderConfirmation.OrderConfirmationData;
  "abandoned-cart": abandonedCart.AbandonedCartData;
  "back-in-stock": backInStock.BackInStockData;
  "order-refund": orderRefund.OrderRefundData;
  "digital-delivery": digitalDelivery.DigitalDeliveryData;
  "order-shipped": orderShipped.OrderShippedData;
  "order-canceled": orderCanceled.OrderCanceledData;
}

export type EmailTemplate = keyof EmailData;

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

interface Template<D> {
  subject(data: D, shop: Shop): string;
  html(data: D, shop: Shop): ReactElement;
  text(data: D, shop: Shop): string;
}

const templates: { [T in EmailTemplate]: Template<EmailData[T]> } = {
  "verification-code": { ...verificationCode, html: (data, shop) => <verificationCode.VerificationCodeEmail data={data} shop={shop} /> },
  "recovery-link": { ...recoveryLink, html: (data, shop) => <recoveryLink.RecoveryLinkEmail data={data} shop={shop} /> },
  "activation-link": { ...activationLink, html: (data, shop) => <activationLink.ActivationLinkEmail data={data} shop={shop} /> },
  "order-confirmation": { ...orderConfirmation, html: (data, shop) => <orderConfirmation.OrderConfirmationEmail data={data} shop={shop} /> },
  "abandoned-cart": { ...abandonedCart, html: (data, shop) => <abandonedCart.AbandonedCartEmail data={data} shop={shop} /> },
  "back-in-stock": { ...backInStock, html: (data, shop) => <backInStock.BackInStockEmail data={data} shop={shop} /> },
  "order-refund": { ...orderRefund, html: (data, shop) => <orderRefund.OrderRefundEmail data={data} shop={shop} /> },
  "digital-delivery": { ...digitalDelivery, html: (data, shop) => <digitalDelivery.DigitalDeliveryEmail data={data} shop={shop} /> },
  "order-shipped": { ...orderShipped, html: (data, shop) => <orderShipped.OrderShippedEmail data={data} shop={shop} /> },
  "order-canceled": { ...orderCanceled, html: (data, shop) => <orderCanceled.OrderCanceledEmail data={data} shop={shop} /> },
};

/** Renders a template to its subject, HTML document and plain text. */
export function renderEmail<T extends EmailTemplate>(template: T, data: EmailData[T], shop: Shop): RenderedEmail {
  const t = templates[template] as Template<EmailData[T]> | undefined;
  if (!t) throw new Error(`unknown email template ${template}`);
  // Subjects are header lines: no line breaks, whatever the data holds.
  const subject = t
    .subject(data, shop)
    .replace(/[\r\n]+/g, " ")
    .trim();
  return { subject, html: `<!DOCTYPE html>${renderToStaticMarkup(t.html(data, shop))}`, text: t.text(data, shop) };
}
