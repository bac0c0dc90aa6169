import { NavLink } from "react-router";

/** A link of a console nav: where, what it says, and whether only its own address (not those below it) marks it. */
export interface NavTarget {
  to: string;
  label: string;
  end?: boolean;
}

/** A nav's list items, one NavLink each (prefetched on intent), marked when the page is theirs. */
export function NavLinks({ links }: { links: readonly NavTarget[] }) {
  return links.map((l) => (
    <li key={l.to}>
      <NavLink to={l.to} end={l.end ?? false} prefetch="intent">
        {l.label}
      </NavLink>
    </li>
  ));
}
