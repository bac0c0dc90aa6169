import { useRouteLoaderData } from "react-router";
import type { loader as rootLoader } from "#web/root";

/** Logo heights of the checkout's brand header per size (the store's checkout settings: logo size and alignment). */
const LOGO_HEIGHT = { SMALL: 32, MEDIUM: 48, LARGE: 72 } as const;

/**
 * The checkout's brand header: the store's logo (or its name, without one) at the size and on the side the merchant
 * chose in the console's Settings. The settings come with the root loader (the KV copy, no extra round trip).
 */
export function CheckoutBrandHeader() {
  const shop = useRouteLoaderData<typeof rootLoader>("root")?.shop;
  if (!shop) return null;
  const { logoSize, alignment } = shop.checkoutHeader;
  const height = LOGO_HEIGHT[logoSize];
  const logo = shop.logo;
  return (
    <div className="checkout-brand" data-align={alignment.toLowerCase()} data-size={logoSize.toLowerCase()} data-testid="checkout-brand">
      {logo ? (
        <img
          src={logo.url}
          alt={shop.name}
          height={height}
          width={logo.width && logo.height ? Math.round((height * logo.width) / logo.height) : undefined}
        />
      ) : (
        <span className="checkout-brand-name">{shop.name}</span>
      )}
    </div>
  );
}
