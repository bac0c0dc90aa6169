import { NavLink } from "react-router";

/**
 * The automations' own tabs: what the event processor does for the merchant, one page each. Every automations page
 * puts this under its heading, so the four read as one section of the console.
 */
const TABS = [
  { to: "/console/automations", label: "Abandoned carts", end: true },
  { to: "/console/automations/back-in-stock", label: "Back in stock" },
  { to: "/console/automations/emails", label: "Emails" },
  { to: "/console/automations/tasks", label: "Tasks" },
] as const;

export function AutomationsNav() {
  return (
    <nav aria-label="Automations" className="console-tabs">
      <ul>
        {TABS.map((t) => (
          <li key={t.to}>
            <NavLink to={t.to} end={"end" in t ? t.end : false} prefetch="intent">
              {t.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
