import { NavLinks } from "./nav-links";

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

/** The automations section's tabs, under each automations page's heading. */
export function AutomationsNav() {
  return (
    <nav aria-label="Automations" className="console-tabs">
      <ul>
        <NavLinks links={TABS} />
      </ul>
    </nav>
  );
}
