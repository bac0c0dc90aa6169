import { Link, Outlet, redirect, useLocation } from "react-router";
import { getOwnIdentity } from "#worker/identity";
import { listOwnOrders } from "#worker/orders";
import { signInPath } from "#web/auth.server";
import { accountSections, holdings } from "#web/components/account/sections";
import { privateHeaders } from "#web/components/checkout/form.server";
import "#web/styles/commerce.css";
import type { Route } from "./+types/account";

export const headers = () => privateHeaders;

/** Members only: a visitor is sent to log in and comes back here. */
export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = context.services;
  const url = new URL(request.url);
  if (ctx.auth.kind !== "member") throw redirect(signInPath("/login", request), { headers: privateHeaders });
  // A membersAccount redirect session names its section (/account?section=ORDERS).
  if (url.pathname === "/account" && url.searchParams.get("section") === "ORDERS") throw redirect("/account/orders", { headers: privateHeaders });
  const [{ identity }, orders] = await Promise.all([getOwnIdentity(ctx), listOwnOrders(ctx, 50)]);
  const p = identity.identityProfile as { firstName?: string };
  return { name: p.firstName ?? null, email: identity.email.address, sections: accountSections(holdings(orders)) };
}

/**
 * Whether a section link is the page shown: the same section (its `?section=`) on the same path, or an order's page
 * under ORDERS. (NavLink ignores the query, so ORDERS and BOOKINGS would both claim /account/orders?section=BOOKINGS.)
 */
function isCurrent(to: string, at: { pathname: string; search: string }): boolean {
  const target = new URL(to, "https://x.invalid");
  const section = new URLSearchParams(at.search).get("section");
  if (target.searchParams.get("section") !== section) return false;
  return at.pathname === target.pathname || (target.pathname === "/account/orders" && !section && at.pathname.startsWith("/account/orders/"));
}

export default function AccountLayout({ loaderData }: Route.ComponentProps) {
  const { name, email, sections } = loaderData;
  const location = useLocation();
  return (
    <main className="page commerce-page account" id="main">
      <header className="account-head">
        <p className="eyebrow">Your account</p>
        <p className="account-who">
          {name ? `Hello, ${name}` : "Hello"} <span className="muted">({email})</span>
        </p>
      </header>
      <div className="account-layout">
        <nav aria-label="Account sections" className="account-sections">
          <ul>
            {sections.map((s) => (
              <li key={s.section}>
                <Link to={s.to} aria-current={isCurrent(s.to, location) ? "page" : undefined}>
                  {s.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div className="account-content">
          <Outlet />
        </div>
      </div>
    </main>
  );
}
