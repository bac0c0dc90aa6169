// The store settings' shape and limits, apart from the service: the console's browser code imports them, and the
// service brings server-only modules with it.

export const LOGO_SIZES = ["SMALL", "MEDIUM", "LARGE"] as const;
export const LOGO_ALIGNMENTS = ["LEFT", "CENTER", "RIGHT"] as const;
export type LogoSize = (typeof LOGO_SIZES)[number];
export type LogoAlignment = (typeof LOGO_ALIGNMENTS)[number];

export interface StoreLogo {
  /** A media URL on this site (/media/<sha256>.<ext>, stored in R2 by the media service). */
  url: string;
  width: number | null;
  height: number | null;
}

export interface StoreSettings {
  /** Shown in the shop's header, the checkout's brand header, page titles and emails. */
  name: string;
  /** Where shoppers can write to the store (the shop's footer shows it); null: none given. */
  contactEmail: string | null;
  logo: StoreLogo | null;
  /** The checkout's brand header: how big the logo is and where it sits. */
  checkoutHeader: { logoSize: LogoSize; alignment: LogoAlignment };
  /** The emails' From: name (null: the store's name) and address (null: EMAIL_FROM from configuration). */
  senderName: string | null;
  senderEmail: string | null;
  /** The store's time zone (IANA name), for its days on the dashboard (worker/reports/dashboard.ts); null: UTC. */
  timeZone: string | null;
  /**
   * Hours an offline order may stay unpaid before it is cancelled and its stock goes back on sale (the sweep in
   * orders/unpaid.ts); 0: never.
   */
  unpaidOrderHoldHours: number;
  /** Digital products: how many times each bought file may be downloaded, and for how many days after payment. */
  downloadLimit: number;
  downloadLinkDays: number;
}

/** The hold of unpaid offline orders when the merchant set none: two days. */
export const DEFAULT_UNPAID_ORDER_HOLD_HOURS = 48;
/** The longest hold a merchant may set: 90 days. */
export const MAX_UNPAID_ORDER_HOLD_HOURS = 90 * 24;

/** Digital downloads when the merchant set nothing: 5 downloads a line, links valid for 30 days. */
export const DEFAULT_DOWNLOAD_LIMIT = 5;
export const DEFAULT_DOWNLOAD_LINK_DAYS = 30;
/** The most a merchant may set: 100 downloads, links valid for a year. */
export const MAX_DOWNLOAD_LIMIT = 100;
export const MAX_DOWNLOAD_LINK_DAYS = 365;
