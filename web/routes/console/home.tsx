import { Link, useRouteLoaderData } from "react-router";
import type { loader as layoutLoader } from "./layout";

export function meta() {
  return [{ title: "Console — Edge Storefront" }];
}

/** Where each section helps, so a new staff member knows where to go first. */
const CARDS = [
  { to: "/console/orders", title: "Orders", text: "Find an order, mark it paid, ship it with a tracking number, cancel or refund." },
  { to: "/console/products", title: "Products", text: "Search and filter the catalogue, edit products and variants, upload images, bulk edits, CSV import and export." },
  { to: "/console/collections", title: "Collections", text: "Group products for the shop's navigation and landing pages." },
  { to: "/console/inventory", title: "Inventory", text: "Stock per variant, adjustments with a reason, the change history and what is running low." },
];

export default function ConsoleHome() {
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  return (
    <>
      <h1>Welcome{user ? `, ${user.email}` : ""}</h1>
      {user?.role === "STAFF" && user.permissions.length === 0 && (
        <p className="console-notice" role="status">
          You can look at everything here, but the store owner has not given you any permission to make changes yet.
        </p>
      )}
      <ul className="console-cards">
        {CARDS.map((c) => (
          <li key={c.to}>
            <Link to={c.to}>
              <h2>{c.title}</h2>
              <p>{c.text}</p>
            </Link>
          </li>
        ))}
      </ul>
    </>
  );
}
