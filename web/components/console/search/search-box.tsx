import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { useFetcher, useLocation, useNavigate } from "react-router";
import type { SearchHit, SearchResults } from "#worker/reports";
import { useSlashToSearch } from "../filter-bar";
import "#web/styles/console-search.css";

/** The kinds of results in the order the console shows them, with their group headings. */
export const SEARCH_GROUPS = [
  ["orders", "Orders"],
  ["customers", "Customers"],
  ["products", "Products"],
  ["collections", "Collections"],
] as const;

/** The results of a search in the groups' order, each with its group heading. */
export function groupedHits(results: SearchResults): { kind: string; label: string; hits: SearchHit[] }[] {
  return SEARCH_GROUPS.map(([kind, label]) => ({ kind, label, hits: results[kind] })).filter((g) => g.hits.length > 0);
}

/** Waits this long after the last keystroke before asking for results. */
const DEBOUNCE_MS = 150;

/**
 * The console's search in its header: a GET form to /console/search (works without JavaScript) that, with it, is a
 * combobox showing results as the merchant types; Ctrl+K / Cmd+K (and "/" on pages without a search of their own)
 * focuses it, the arrow keys move through the results and Enter opens the chosen one.
 */
export function SearchBox() {
  const id = useId();
  const listId = `${id}-results`;
  const input = useSlashToSearch({ fallback: true });
  const fetcher = useFetcher<SearchResults>();
  const navigate = useNavigate();
  const location = useLocation();
  const [q, setQ] = useState("");
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => {
    const onKey = (e: globalThis.KeyboardEvent) => {
      if (e.key.toLowerCase() === "k" && (e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey) {
        e.preventDefault();
        input.current?.focus();
        input.current?.select();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [input]);

  // A page opened from the results closes them.
  useEffect(() => setOpen(false), [location.key]);

  const results = fetcher.data && fetcher.data.q === q.trim() ? fetcher.data : null;
  const hits = results ? groupedHits(results).flatMap((g) => g.hits) : [];
  const shown = open && q.trim() !== "" && results !== null;
  const listed = shown && hits.length > 0;

  const typed = (value: string) => {
    setQ(value);
    setOpen(true);
    setActive(0);
    clearTimeout(timer.current);
    if (value.trim()) timer.current = setTimeout(() => fetcher.load(`/console/search?${new URLSearchParams({ q: value.trim() })}`), DEBOUNCE_MS);
  };

  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Escape") {
      setOpen(false);
    } else if ((e.key === "ArrowDown" || e.key === "ArrowUp") && hits.length) {
      e.preventDefault();
      setOpen(true);
      setActive((i) => (i + (e.key === "ArrowDown" ? 1 : hits.length - 1)) % hits.length);
    } else if (e.key === "Enter" && listed && hits[active]) {
      e.preventDefault();
      setOpen(false);
      navigate(hits[active].href);
    }
  };

  const optionId = (i: number) => `${id}-option-${i}`;
  let index = -1;
  return (
    <form method="get" action="/console/search" role="search" aria-label="Console search" className="console-search" onSubmit={() => setOpen(false)}>
      <label htmlFor={`${id}-q`} className="console-search-hidden">
        Search the console
      </label>
      <input
        id={`${id}-q`}
        ref={input}
        type="search"
        name="q"
        value={q}
        onChange={(e) => typed(e.target.value)}
        onKeyDown={onKeyDown}
        onFocus={() => setOpen(true)}
        onBlur={() => setTimeout(() => setOpen(false), 150)}
        placeholder="Search (Ctrl+K)"
        maxLength={100}
        autoComplete="off"
        role="combobox"
        aria-expanded={listed}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={listed && hits[active] ? optionId(active) : undefined}
        aria-keyshortcuts="Control+K Meta+K"
      />
      <button type="submit" className="console-search-hidden">
        Search
      </button>
      <div id={listId} role="listbox" aria-label="Search results" className="console-search-results" hidden={!listed}>
        {results &&
          groupedHits(results).map((g) => (
            <div key={g.kind} role="group" aria-label={g.label}>
              <div className="console-search-group" aria-hidden="true">
                {g.label}
              </div>
              {g.hits.map((hit) => {
                index += 1;
                const i = index;
                return (
                  // biome-ignore lint/a11y/useKeyWithClickEvents: the keys work in the combobox's input (aria-activedescendant)
                  <div
                    key={hit.href}
                    tabIndex={-1}
                    id={optionId(i)}
                    role="option"
                    aria-selected={i === active}
                    className="console-search-option"
                    onMouseDown={(e) => e.preventDefault()}
                    onMouseEnter={() => setActive(i)}
                    onClick={() => {
                      setOpen(false);
                      navigate(hit.href);
                    }}
                  >
                    <span>{hit.title}</span>
                    <span className="console-muted">{hit.subtitle}</span>
                  </div>
                );
              })}
            </div>
          ))}
      </div>
      {shown && !listed && (
        <p className="console-search-results console-search-none" role="status">
          Nothing found for “{results?.q}”
        </p>
      )}
    </form>
  );
}
