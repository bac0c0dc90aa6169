import type { ReactNode } from "react";
import {
  isRouteErrorResponse,
  Link,
  NavLink,
  Outlet,
  useLoaderData,
  useNavigation,
  useRouteLoaderData,
  type ShouldRevalidateFunctionArgs,
} from "react-router";
import { shopSettings } from "#worker/store";
import { SHOP_NAME } from "#web/components/catalog/shared";
import { NavLinks } from "#web/components/console/nav-links";
import { SearchBox } from "#web/components/console/search/search-box";
import { UserMenu } from "#web/components/console/user-menu";
import { FormLook } from "#web/components/ui/form";
import { UnsavedChangesGuard } from "#web/components/ui/page";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console.css";
import type { Route } from "./+types/layout";

/**
 * The console's frame: who is signed in, the sections, sign out. Every console page sits inside it, so the guard
 * here sends anyone without a console session to the sign-in page. The sections a staff member may only look at
 * stay visible (reading needs no permission); the pages hide the buttons they may not use. The store's name is here
 * for every page's <title> (web/components/console/title.ts).
 */
export async function loader({ context, request }: Route.LoaderArgs) {
  const user = requireStaff(context, request);
  // The store's name for the pages' <title>s: the KV copy the shop's pages read, not a D1 round trip.
  const settings = await shopSettings(context.services).catch(() => null);
  return { user, storeName: settings?.name ?? SHOP_NAME };
}

// Pages below the layout without a headers export of their own send these (React Router takes the parent's).
export const headers = () => consoleHeaders;

/** The frame changes only when something is posted (who is signed in does not change on navigation). */
export function shouldRevalidate({ formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return formMethod !== undefined && formMethod.toUpperCase() !== "GET" ? defaultShouldRevalidate : false;
}

/** The console's sections, in the order a merchant works through a day. */
export const SECTIONS = [
  { to: "/console", label: "Home", end: true },
  { to: "/console/orders", label: "Orders" },
  { to: "/console/customers", label: "Customers" },
  { to: "/console/products", label: "Products" },
  { to: "/console/collections", label: "Collections" },
  { to: "/console/reports", label: "Reports" },
  { to: "/console/inventory", label: "Inventory" },
  { to: "/console/automations", label: "Automations" },
  { to: "/console/webhooks", label: "Webhooks" },
  { to: "/console/pricing", label: "Pricing" },
  { to: "/console/content", label: "Content" },
  { to: "/console/settings", label: "Settings" },
] as const;

export default function ConsoleLayout() {
  const { user } = useLoaderData<typeof loader>();
  return (
    <Frame user={user}>
      <FormLook value="console">
        <Outlet />
      </FormLook>
    </Frame>
  );
}

/** A console page that failed (403, 404 or a fault) shows its error inside the console's frame, not the shop's. */
export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const layout = useRouteLoaderData<typeof loader>("routes/console/layout");
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const said = isRouteErrorResponse(error) && typeof error.data === "string" && error.data.length < 300 ? error.data : null;
  const [title, text] =
    status === 404
      ? ["Page not found", said ?? "There is no console page here. It may have been deleted, or the link may be mistyped."]
      : status === 403
        ? ["Not allowed", said ?? "Your account may not open this page. Ask the store owner for the permission."]
        : ["Something went wrong", "The page could not be shown. Please try again in a moment."];
  const body = (
    <section className="console-error-page" aria-labelledby="console-error-title">
      <title>{`${title} — Console`}</title>
      <p className="console-muted">{status === 404 || status === 403 ? status : "Error"}</p>
      <h1 id="console-error-title">{title}</h1>
      <p>{text}</p>
      <p>
        <Link to="/console" className="console-button">
          Back to the console
        </Link>
      </p>
    </section>
  );
  if (!layout) return <main className="console-main">{body}</main>;
  return <Frame user={layout.user}>{body}</Frame>;
}

/** The console's header, sections and main area around a page (or its error). */
function Frame({ user, children }: { user: ReturnType<typeof useLoaderData<typeof loader>>["user"]; children: ReactNode }) {
  const navigation = useNavigation();
  return (
    <div className="console">
      <a className="skip-link" href="#console-main">
        Skip to content
      </a>
      <header className="console-header">
        <a href="/console" className="console-brand">
          Console
        </a>
        <nav aria-label="Console sections" className="console-nav">
          <ul>
            <NavLinks links={SECTIONS} />
            {user.role === "OWNER" && (
              <li>
                <NavLink to="/console/staff">Staff</NavLink>
              </li>
            )}
          </ul>
        </nav>
        <SearchBox />
        <UserMenu user={user} />
      </header>
      <div className="console-progress" data-active={navigation.state !== "idle" || undefined} aria-hidden="true" />
      <main id="console-main" className="console-main" tabIndex={-1}>
        {children}
      </main>
      <UnsavedChangesGuard />
    </div>
  );
}
