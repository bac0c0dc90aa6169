import { useEffect } from "react";
import {
  Form,
  isRouteErrorResponse,
  Link,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLocation,
  useRouteLoaderData,
  type ShouldRevalidateFunctionArgs,
} from "react-router";
import { findCurrentCart } from "#worker/cart";
import { navFrame } from "./content.server";
import { isConsolePath } from "#web/components/console/paths";
import { SHOP_NAME } from "#web/components/catalog/shared";
import { InlineStyles } from "#web/components/inline-styles";
import { ShopLink, ShopLinks } from "#web/components/shop-links";
import { pageShopSettings } from "#worker/store";
import type { Route } from "./+types/root";
// The stylesheet (./styles.css) is inlined into every page's head (components/inline-styles.tsx).

/**
 * The frame of every page: who is browsing (the session itself lives in the cookie; see web/session.server.ts), the
 * number of items in their cart, and the navigation: the header and footer menus (the CMS's) with the collections for
 * the footer, one D1 round trip from the catalogue cache. They are read side by side; none of them may break the
 * page, so each falls back to an empty value.
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const ctx = context.services;
  // The merchant console draws its own frame (web/routes/console/layout.tsx): no cart, no shop navigation.
  if (isConsolePath(new URL(request.url).pathname))
    return { signedIn: false, cartCount: 0, collections: [], menus: NO_MENUS, cspNonce: context.cspNonce, console: true, shop: null };
  const hasCart = ctx.auth.kind === "visitor" || ctx.auth.kind === "member";
  const [cart, nav, settings] = await Promise.all([
    hasCart ? findCurrentCart(ctx).catch(() => null) : null,
    navFrame(ctx).catch(() => null),
    // The store's name, logo and checkout header (the console's Settings): from the catalogue cache, or a KV read.
    pageShopSettings(ctx).catch(() => null),
  ]);
  return {
    shop: settings
      ? { name: settings.name, logo: settings.logo, checkoutHeader: settings.checkoutHeader, contactEmail: settings.contactEmail }
      : null,
    signedIn: ctx.auth.kind === "member",
    cartCount: cart ? cart.lineItems.reduce((n, l) => n + l.quantity, 0) : 0,
    collections: (nav?.collections ?? []).map((c) => ({ slug: c.slug, name: c.name, count: c.count, image: c.image })),
    menus: nav ? { header: nav.header, footer: nav.footer } : NO_MENUS,
    cspNonce: context.cspNonce,
    console: false,
  };
}

/**
 * The frame changes only when something is posted (an add to cart, a log in or out): plain navigations and GET
 * forms (search, filters, variant picks) keep it instead of asking for it again.
 */
export function shouldRevalidate({ formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return formMethod !== undefined && formMethod.toUpperCase() !== "GET" ? defaultShouldRevalidate : false;
}

const NO_MENUS: { header: MenuLink[]; footer: MenuLink[] } = { header: [], footer: [] };

/** The frame of every page: the console's bare document, or the shop's with its header and footer. */
export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRouteLoaderData<typeof loader>("root");
  const nonce = root?.cspNonce;
  const { search, pathname } = useLocation();
  const q = pathname === "/search" ? (new URLSearchParams(search).get("q") ?? "") : "";
  const shopName = root?.shop?.name ?? SHOP_NAME;
  const collections = root?.collections ?? [];
  const menus = root?.menus ?? NO_MENUS;
  const signedIn = !!root?.signedIn;
  // Lets browser tests know the page is interactive; in the Layout, so error pages say so too.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  if (isConsolePath(pathname)) {
    // The merchant console draws its own frame (web/routes/console/layout.tsx): no shop header or footer.
    return (
      <Document
        nonce={nonce}
        bodyClassName="console-body"
        head={
          <>
            <meta name="robots" content="noindex" />
            <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
          </>
        }
      >
        {children}
      </Document>
    );
  }
  const head = (
    <>
      <meta name="theme-color" content="#fbfaf7" />
      <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
      {/* Marks the page as scripted before the first paint, so controls only a page without JavaScript needs
          (.js-hidden: "Sort", "Show selection") never appear and then vanish, shifting the layout. */}
      {/* biome-ignore lint/security/noDangerouslySetInnerHtml: a fixed script, no outside input. */}
      <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: 'document.documentElement.classList.add("js")' }} />
    </>
  );
  return (
    <Document nonce={nonce} head={head}>
      <a className="skip-link" href="#main-content">
        Skip to content
      </a>
      <header className="site-header">
        <div className={signedIn ? "header-bar signed-in" : "header-bar"}>
          <Brand shopName={shopName} logo={root?.shop?.logo} />
          <HeaderSearch q={q} />
          <AccountNav signedIn={signedIn} cartCount={root?.cartCount ?? 0} />
        </div>
        <PrimaryNav links={menus.header} pathname={pathname} />
      </header>
      <div id="main-content" tabIndex={-1} className="content">
        {children}
      </div>
      <SiteFooter collections={collections} links={menus.footer} signedIn={signedIn} shopName={shopName} contactEmail={root?.shop?.contactEmail} />
      <ShopLinks />
    </Document>
  );
}

/** The HTML document around a page: the head every page has (with `head` after the viewport) and the scripts. */
function Document({
  nonce,
  head,
  bodyClassName,
  children,
}: {
  nonce: string | undefined;
  head: React.ReactNode;
  bodyClassName?: string;
  children: React.ReactNode;
}) {
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <InlineStyles />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {head}
        <Meta />
        <Links nonce={nonce} />
      </head>
      <body className={bodyClassName}>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

type RootData = Awaited<ReturnType<typeof loader>>;
type NavCollection = RootData["collections"][number];
type Logo = NonNullable<RootData["shop"]>["logo"];
/** A menu entry (the CMS's menus link pages, collections and free URLs). */
type MenuLink = { title: string; href: string };

/** A menu's link: a path on the shop navigates in the app; a free URL elsewhere is a plain link. */
function MenuAnchor({ link, current = false }: { link: MenuLink; current?: boolean }) {
  if (!link.href.startsWith("/")) return <a href={link.href}>{link.title}</a>;
  return (
    <ShopLink to={link.href} aria-current={current ? "page" : undefined}>
      {link.title}
    </ShopLink>
  );
}

function Brand({ shopName, logo }: { shopName: string; logo: Logo | undefined }) {
  return (
    <ShopLink to="/" className="brand" aria-label={`${shopName} home`}>
      {logo ? (
        // The store's logo (console Settings); the name beside it is the link's text, so the image is decorative.
        <img
          className="brand-logo"
          src={logo.url}
          alt=""
          height={28}
          width={logo.width && logo.height ? Math.round((28 * logo.width) / logo.height) : undefined}
        />
      ) : (
        <svg className="brand-mark" width="28" height="28" viewBox="0 0 28 28" aria-hidden="true">
          <rect width="28" height="28" rx="7" fill="#1f3a5f" />
          <path d="M8 19V9h11M8 14h8M8 19h11" stroke="#fbfaf7" strokeWidth="2.4" fill="none" strokeLinecap="round" strokeLinejoin="round" />
        </svg>
      )}
      <span>{shopName}</span>
    </ShopLink>
  );
}

function HeaderSearch({ q }: { q: string }) {
  return (
    <form method="get" action="/search" role="search" className="header-search">
      <label htmlFor="header-q" className="visually-hidden">
        Search products
      </label>
      <input id="header-q" type="search" name="q" placeholder="Search products" defaultValue={q} key={q} maxLength={200} autoComplete="off" />
      <button type="submit" className="search-button">
        <svg width="18" height="18" viewBox="0 0 24 24" aria-hidden="true">
          <circle cx="10.5" cy="10.5" r="6.5" stroke="currentColor" strokeWidth="2.2" fill="none" />
          <path d="M15.5 15.5 21 21" stroke="currentColor" strokeWidth="2.2" strokeLinecap="round" />
        </svg>
        <span className="visually-hidden">Search</span>
      </button>
    </form>
  );
}

function AccountNav({ signedIn, cartCount }: { signedIn: boolean; cartCount: number }) {
  return (
    <nav aria-label="Account" className="account-nav">
      {signedIn ? (
        <>
          <ShopLink to="/account">Account</ShopLink>
          <Form method="post" action="/logout">
            <button type="submit" className="link-button">
              Log out
            </button>
          </Form>
        </>
      ) : (
        <>
          <ShopLink to="/login">Log in</ShopLink>
          <ShopLink to="/register" className="hide-narrow">
            Create account
          </ShopLink>
        </>
      )}
      <ShopLink to="/cart" className="cart-link">
        <svg width="22" height="22" viewBox="0 0 24 24" aria-hidden="true">
          <path
            d="M3 4h2.2l2.3 11.2a1.5 1.5 0 0 0 1.5 1.2h8.6a1.5 1.5 0 0 0 1.5-1.1L21 8H6.2"
            stroke="currentColor"
            strokeWidth="2"
            fill="none"
            strokeLinecap="round"
            strokeLinejoin="round"
          />
          <circle cx="9.5" cy="20" r="1.4" fill="currentColor" />
          <circle cx="17.5" cy="20" r="1.4" fill="currentColor" />
        </svg>
        <span className="cart-word">Cart</span>{" "}
        <span className="cart-count" data-testid="cart-count">
          {cartCount}
          <span className="visually-hidden"> {cartCount === 1 ? "item" : "items"}</span>
        </span>
      </ShopLink>
    </nav>
  );
}

/**
 * The main bar: "Shop all", then the header menu's links (the merchant sets them in the console's Content section), as
 * plain links (see shop-links.tsx) marked current from the one location the layout reads, which is what NavLink would
 * do with a dozen hooks per link.
 */
function PrimaryNav({ links, pathname }: { links: MenuLink[]; pathname: string }) {
  return (
    <nav aria-label="Main" className="primary-nav">
      <ul>
        <li>
          <ShopLink to="/shop" aria-current={pathname === "/shop" ? "page" : undefined}>
            Shop all
          </ShopLink>
        </li>
        {links.map((l) => (
          <li key={l.href}>
            <MenuAnchor link={l} current={pathname === l.href} />
          </li>
        ))}
      </ul>
    </nav>
  );
}

function SiteFooter({
  collections,
  links,
  signedIn,
  shopName,
  contactEmail,
}: {
  collections: NavCollection[];
  links: MenuLink[];
  signedIn: boolean;
  shopName: string;
  contactEmail: string | null | undefined;
}) {
  return (
    <footer className="site-footer">
      <div className="footer-grid">
        <section aria-labelledby="footer-shop">
          <h2 id="footer-shop">Shop</h2>
          <ul className="footer-collections">
            <li>
              <ShopLink to="/shop">All products</ShopLink>
            </li>
            {collections.map((c) => (
              <li key={c.slug}>
                <ShopLink to={`/collections/${c.slug}`}>{c.name}</ShopLink>
              </li>
            ))}
          </ul>
        </section>
        <section aria-labelledby="footer-help">
          <h2 id="footer-help">Help</h2>
          <ul>
            <li>
              <ShopLink to="/search">Search</ShopLink>
            </li>
            <li>
              <ShopLink to="/cart">Your cart</ShopLink>
            </li>
            <li>
              <ShopLink to={signedIn ? "/account" : "/login"}>Your account</ShopLink>
            </li>
            {links.map((l) => (
              <li key={l.href}>
                <MenuAnchor link={l} />
              </li>
            ))}
          </ul>
        </section>
        <section aria-labelledby="footer-about">
          <h2 id="footer-about">About</h2>
          <p>Apparel, home goods and coffee from a small independent shop. Free shipping on orders over $75; returns within 30 days.</p>
          {contactEmail && (
            <p>
              Questions? Write to <a href={`mailto:${contactEmail}`}>{contactEmail}</a>
            </p>
          )}
        </section>
      </div>
      <p className="footer-note">© {shopName} — an open-source shop on the edge.</p>
    </footer>
  );
}

export default function App() {
  return <Outlet />;
}

export function meta({ error }: Route.MetaArgs) {
  if (!error) return [];
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return [{ title: `${notFound ? "Page not found" : "Something went wrong"} — ${SHOP_NAME}` }, { name: "robots", content: "noindex" }];
}

/** 404 and error pages keep the frame (Layout) and offer a way on: search, the shop, the collections. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  const root = useRouteLoaderData<typeof loader>("root");
  return (
    <main className="page error-page">
      <p className="error-code">{notFound ? "404" : "Error"}</p>
      <h1>{notFound ? "Page not found" : "Something went wrong"}</h1>
      <p className="lede">
        {notFound ? "We could not find that page. It may have moved, or the link may be mistyped." : "Please try again in a moment."}
      </p>
      <form method="get" action="/search" role="search" className="search-page-form" aria-label="Search the shop">
        <label htmlFor="error-q">Search products</label>
        <div className="search-row">
          <input id="error-q" type="search" name="q" maxLength={200} />
          <button type="submit" className="button">
            Search
          </button>
        </div>
      </form>
      <p>
        <Link to="/" className="button">
          Back to the shop
        </Link>
      </p>
      {root?.collections?.length ? (
        <nav aria-label="Browse collections">
          <ul className="chips">
            {root.collections.map((c) => (
              <li key={c.slug}>
                <Link to={`/collections/${c.slug}`}>{c.name}</Link>
              </li>
            ))}
          </ul>
        </nav>
      ) : null}
    </main>
  );
}
