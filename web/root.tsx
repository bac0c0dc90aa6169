import { useEffect } from "react";
import { Form, isRouteErrorResponse, Link, Links, Meta, Outlet, Scripts, ScrollRestoration, useRouteLoaderData } from "react-router";
import type { Route } from "./+types/root";
import "./styles.css";

/** Who is browsing, for the header (the session itself lives in the cookie; see web/session.server.ts). */
export function loader({ context }: Route.LoaderArgs) {
  return { signedIn: context.services.auth.kind === "member" };
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRouteLoaderData<typeof loader>("root");
  return (
    <html lang="en">
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <link rel="icon" href="data:," />
        <Meta />
        <Links />
      </head>
      <body>
        <header className="site-header">
          <Link to="/" className="brand">
            Edge Storefront
          </Link>
          <nav aria-label="Account" className="account-nav">
            {root?.signedIn ? (
              <Form method="post" action="/logout">
                <button type="submit" className="link-button">
                  Log out
                </button>
              </Form>
            ) : (
              <>
                <Link to="/login">Log in</Link> <Link to="/register">Create account</Link>
              </>
            )}
          </nav>
        </header>
        {children}
        <footer className="site-footer">
          <p>Edge Storefront — an open-source shop on the edge.</p>
        </footer>
        <ScrollRestoration />
        <Scripts />
      </body>
    </html>
  );
}

export default function App() {
  // Lets browser tests know the page is interactive.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

export function ErrorBoundary({ error }: Route.ErrorBoundaryProps) {
  const notFound = isRouteErrorResponse(error) && error.status === 404;
  return (
    <main className="page">
      <h1>{notFound ? "Page not found" : "Something went wrong"}</h1>
      <p>{notFound ? "We could not find that page." : "Please try again in a moment."}</p>
      <p>
        <Link to="/">Back to the shop</Link>
      </p>
    </main>
  );
}
