import type { ReactNode } from "react";
import { Form, Link, useLocation, useNavigation, useSubmit } from "react-router";
import { ProductGrid } from "./cards";
import { listingHref, PAGE_SIZE, SORTS, type FacetChoice, type Facets, type ListingState, type ProductCard, type SortKey } from "./shared";

/**
 * A product listing (all products, a collection, search results): filters, sort, counts and pages. All of it is
 * plain GET forms and links, so it works before and without JavaScript; with it, a changed checkbox or sort applies
 * at once. The filter state lives in the URL.
 */

export interface ListingProps {
  heading: ReactNode;
  intro?: ReactNode;
  state: ListingState;
  cards: ProductCard[];
  total: number;
  pages: number;
  /** Awaited with the results, not streamed: without JavaScript a streamed part would never be revealed. */
  facets: Facets | null;
  /** Shown instead of the grid when nothing matches. */
  empty?: ReactNode;
  /** Sorting by relevance is offered (search). */
  relevance?: boolean;
}

export function Listing({ heading, intro, state, cards, total, pages, facets, empty, relevance = false }: ListingProps) {
  const { pathname, search } = useLocation();
  const navigation = useNavigation();
  const busy = navigation.state === "loading" && navigation.location?.pathname === pathname;
  const first = (state.page - 1) * PAGE_SIZE + 1;
  const lastPage = { page: pages === 1 ? null : String(pages) };
  return (
    <main className="page listing">
      <header className="listing-head">
        {heading}
        {intro}
      </header>
      <div className="listing-layout">
        <Filters facets={facets} state={state} />
        <section className="listing-results" aria-labelledby="results-count" aria-busy={busy}>
          <div className="listing-toolbar">
            <p id="results-count" className="results-count" role="status">
              {total === 0
                ? "No products"
                : cards.length === 0
                  ? `No products on page ${state.page}`
                  : total === 1
                    ? "1 product"
                    : cards.length < total
                      ? `${first}–${first + cards.length - 1} of ${total} products`
                      : `${total} products`}
            </p>
            <SortForm state={state} relevance={relevance} />
          </div>
          <ActiveFilters state={state} pathname={pathname} search={search} />
          {cards.length ? (
            <ProductGrid cards={cards} eager={4} headingLevel={2} label="Products" />
          ) : total > 0 ? (
            // An old link to a page the list no longer reaches.
            <div className="empty-state">
              <p>
                This list ends on page {pages}. <Link to={listingHref(pathname, search, lastPage)}>Go to page {pages}</Link>
              </p>
            </div>
          ) : (
            empty
          )}
          {pages > 1 && state.page <= pages && <Pagination page={state.page} pages={pages} pathname={pathname} search={search} />}
        </section>
      </div>
    </main>
  );
}

/** Hidden fields that carry the rest of the state through a form that changes one part of it. */
function Carry({ search, except }: { search: string; except: string[] }) {
  const params = [...new URLSearchParams(search)].filter(([k]) => !except.includes(k) && k !== "page");
  return (
    <>
      {params.map(([k, v], i) => (
        <input key={`${k}-${i}`} type="hidden" name={k} value={v} />
      ))}
    </>
  );
}

function SortForm({ state, relevance }: { state: ListingState; relevance: boolean }) {
  const { search } = useLocation();
  const submit = useSubmit();
  const options: [SortKey, string][] = [
    ...(relevance ? [["relevance", "Best match"] as [SortKey, string]] : []),
    ...Object.entries(SORTS).map(([k, v]) => [k as SortKey, v.label] as [SortKey, string]),
  ];
  return (
    <Form method="get" className="sort-form" onChange={(e) => submit(e.currentTarget, { preventScrollReset: true })}>
      <Carry search={search} except={["sort"]} />
      <label htmlFor="sort">Sort by</label>
      <select id="sort" name="sort" defaultValue={state.sort} key={state.sort}>
        {options.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
      <button type="submit" className="button secondary js-hidden">
        Sort
      </button>
    </Form>
  );
}

/** The filter form: price range, options (colour swatches and text choices), brand and stock, each with its count. */
function Filters({ facets, state }: { facets: Facets | null; state: ListingState }) {
  const { search } = useLocation();
  const submit = useSubmit();
  if (!facets) return <aside className="filters" aria-label="Filters" />;
  const keep = ["q", "sort"];
  // With JavaScript: checkboxes apply at once, typed prices wait for the button (or Enter), and empty fields stay
  // out of the URL.
  const apply = (form: HTMLFormElement) => {
    const params = new URLSearchParams();
    for (const [k, v] of new FormData(form)) if (typeof v === "string" && v.trim() !== "") params.append(k, v);
    submit(params, { method: "get", preventScrollReset: true });
  };
  const onChange = (e: React.ChangeEvent<HTMLFormElement>) => {
    if ((e.target as unknown as HTMLInputElement).type === "checkbox") apply(e.currentTarget);
  };
  const onSubmit = (e: React.FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    apply(e.currentTarget);
  };
  return (
    <aside className="filters" aria-label="Filters">
      <details className="filters-details">
        <summary>
          Filters{" "}
          <span className="muted">
            (
            {
              [state.min !== null || state.max !== null, ...state.brands, ...Object.values(state.options).flat(), state.inStock].filter(Boolean)
                .length
            }{" "}
            applied)
          </span>
        </summary>
        <Form method="get" onChange={onChange} onSubmit={onSubmit} className="filter-form">
          {[...new URLSearchParams(search)]
            .filter(([k]) => keep.includes(k))
            .map(([k, v]) => (
              <input key={k} type="hidden" name={k} value={v} />
            ))}
          {facets.price && <PriceFacet price={facets.price} state={state} />}
          {facets.options.map((o) => (
            <ChoiceFacet key={o.name} legend={o.name} name={`opt.${o.name}`} choices={o.choices} swatches={o.color} />
          ))}
          {facets.brands.length > 1 && <ChoiceFacet legend="Brand" name="brand" choices={facets.brands} swatches={false} />}
          <fieldset className="facet">
            <legend>Availability</legend>
            <label className="check">
              <input type="checkbox" name="instock" value="1" defaultChecked={facets.inStock.selected} key={`instock-${facets.inStock.selected}`} />
              <span>In stock only</span> <span className="count">({facets.inStock.count})</span>
            </label>
          </fieldset>
          <button type="submit" className="button">
            Apply filters
          </button>
        </Form>
      </details>
    </aside>
  );
}

/** The price range filter: typed amounts, applied with the filter form's button (or Enter). */
function PriceFacet({ price, state }: { price: NonNullable<Facets["price"]>; state: ListingState }) {
  return (
    <fieldset className="facet">
      <legend>Price</legend>
      <div className="price-range">
        <PriceBound name="min" label={`Min (${price.currencySymbol})`} placeholder={price.min} value={state.min} />
        <PriceBound name="max" label={`Max (${price.currencySymbol})`} placeholder={price.max} value={state.max} />
      </div>
    </fieldset>
  );
}

/** One end of the price range, keyed by its value so a new URL resets what was typed. */
function PriceBound({ name, label, placeholder, value }: { name: string; label: string; placeholder: number; value: number | null }) {
  return (
    <label>
      <span>{label}</span>
      <input
        type="number"
        name={name}
        inputMode="decimal"
        min={0}
        step="any"
        placeholder={String(placeholder)}
        defaultValue={value ?? ""}
        key={`${name}-${value}`}
      />
    </label>
  );
}

/** One filter of ticked choices (an option's, or the brands), each with the number of products it would show. */
function ChoiceFacet({ legend, name, choices, swatches }: { legend: string; name: string; choices: FacetChoice[]; swatches: boolean }) {
  return (
    <fieldset className="facet">
      <legend>{legend}</legend>
      <ul className={swatches ? "facet-choices swatches" : "facet-choices"}>
        {choices.map((c) => (
          <li key={c.value}>
            <label className="check">
              <input type="checkbox" name={name} value={c.value} defaultChecked={c.selected} key={`${c.value}-${c.selected}`} />
              {c.swatch && <span className="swatch-dot" style={{ background: c.swatch }} aria-hidden="true" />}
              <span>{c.label}</span> <span className="count">({c.count})</span>
            </label>
          </li>
        ))}
      </ul>
    </fieldset>
  );
}

/** The filters in force, each a link that removes it, and one that clears them all. */
function ActiveFilters({ state, pathname, search }: { state: ListingState; pathname: string; search: string }) {
  const chips: { label: string; href: string }[] = [];
  if (state.min !== null || state.max !== null) {
    const label =
      state.min !== null && state.max !== null ? `${state.min}–${state.max}` : state.min !== null ? `from ${state.min}` : `up to ${state.max}`;
    chips.push({ label: `Price ${label}`, href: listingHref(pathname, search, { min: null, max: null }) });
  }
  for (const [name, choices] of Object.entries(state.options)) {
    for (const c of choices) chips.push({ label: `${name}: ${c}`, href: listingHref(pathname, search, {}, [`opt.${name}`, c]) });
  }
  for (const b of state.brands) chips.push({ label: `Brand: ${b}`, href: listingHref(pathname, search, {}, ["brand", b]) });
  if (state.inStock) chips.push({ label: "In stock only", href: listingHref(pathname, search, { instock: null }) });
  if (!chips.length) return null;
  const clear = listingHref(pathname, "", state.q ? { q: state.q } : {});
  return (
    <nav className="active-filters" aria-label="Filters applied">
      <ul className="chips">
        {chips.map((c) => (
          <li key={c.href}>
            <Link to={c.href} preventScrollReset aria-label={`Remove filter ${c.label}`}>
              {c.label} <span aria-hidden="true">×</span>
            </Link>
          </li>
        ))}
        <li>
          <Link to={clear} preventScrollReset className="clear-all">
            Clear all
          </Link>
        </li>
      </ul>
    </nav>
  );
}

function Pagination({ page, pages, pathname, search }: { page: number; pages: number; pathname: string; search: string }) {
  const href = (n: number) => listingHref(pathname, search, { page: n === 1 ? null : String(n) });
  const numbers = Array.from({ length: pages }, (_, i) => i + 1).filter((n) => n === 1 || n === pages || Math.abs(n - page) <= 1);
  return (
    <nav className="pagination" aria-label="Pages">
      <ul>
        {page > 1 && (
          <li>
            <Link to={href(page - 1)} rel="prev">
              Previous
            </Link>
          </li>
        )}
        {numbers.map((n, i) => (
          <li key={n}>
            {i > 0 && numbers[i - 1] !== n - 1 && <span aria-hidden="true">… </span>}
            <Link to={href(n)} aria-current={n === page ? "page" : undefined} aria-label={`Page ${n}`}>
              {n}
            </Link>
          </li>
        ))}
        {page < pages && (
          <li>
            <Link to={href(page + 1)} rel="next">
              Next
            </Link>
          </li>
        )}
      </ul>
    </nav>
  );
}
