import { NavLink, useRouteLoaderData } from "react-router";
import type { loader as layoutLoader } from "#web/routes/console/layout";

/**
 * The tabs of the console's Settings: the store itself, who works in it (staff, owner only), API keys, the shop's
 * members and their sign-up rules, payments. Every settings page puts it under its h1.
 */
export function SettingsNav() {
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const tabs = [
    { to: "/console/settings", label: "Store", end: true },
    // Only the owner manages staff (the staff page refuses anyone else).
    ...(user?.role === "OWNER" ? [{ to: "/console/staff", label: "Staff and roles", end: true }] : []),
    { to: "/console/settings/api-keys", label: "API keys", end: true },
    { to: "/console/settings/members", label: "Members", end: true },
    { to: "/console/settings/identity", label: "Sign-up and sign-in", end: true },
    { to: "/console/settings/payments", label: "Payments", end: true },
    { to: "/console/settings/headless", label: "Headless sites", end: true },
  ];
  return (
    <nav aria-label="Settings" className="console-tabs">
      <ul>
        {tabs.map((t) => (
          <li key={t.to}>
            <NavLink to={t.to} end={t.end} prefetch="intent">
              {t.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
