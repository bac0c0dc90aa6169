import { Form, useLocation, useNavigate, useNavigation } from "react-router";

/** An option of the product with each choice's state for the shopper's current selection. */
export interface PickerOption {
  name: string;
  color: boolean;
  choices: { name: string; swatch: string | null; state: "available" | "sold-out" | "unavailable" }[];
}

/** The product URL for a selection: `?Size=M&Color=Navy` in option order. */
export function selectionSearch(options: PickerOption[], selection: Record<string, string>): string {
  const params = new URLSearchParams();
  for (const o of options) if (selection[o.name]) params.set(o.name, selection[o.name]);
  const qs = params.toString();
  return qs ? `?${qs}` : "";
}

const STATE_NOTE = { available: "", "sold-out": "sold out", unavailable: "not available with this selection" } as const;

/**
 * Option pickers as radio groups (text choices and colour swatches): arrow keys move between choices, and each
 * choice's label says when it is sold out or unavailable for the rest of the selection. The selection lives in the
 * URL: without JavaScript the "Show selection" button submits this GET form; with it, a change navigates at once.
 */
export function OptionPicker({ options, selection }: { options: PickerOption[]; selection: Record<string, string> }) {
  const { pathname } = useLocation();
  const navigate = useNavigate();
  const navigation = useNavigation();
  // While the next selection loads, show it already (the radios stay where the shopper put them).
  const pending = navigation.location?.pathname === pathname ? new URLSearchParams(navigation.location.search) : null;
  const shown = (name: string) => (pending ? (pending.get(name) ?? undefined) : selection[name]);

  const pick = (name: string, choice: string) => {
    const next = { ...selection, [name]: choice };
    navigate(`${pathname}${selectionSearch(options, next)}`, { replace: true, preventScrollReset: true });
  };

  return (
    <Form method="get" className="option-picker" preventScrollReset>
      {options.map((o) => {
        const current = shown(o.name);
        return (
          <fieldset key={o.name} className={o.color ? "option swatch-option" : "option"}>
            <legend>
              {o.name}: <span className="option-current">{current ?? "choose one"}</span>
            </legend>
            <div className="choices">
              {o.choices.map((c) => {
                const id = `opt-${o.name}-${c.name}`.replace(/[^A-Za-z0-9_-]/g, "_");
                return (
                  <span key={c.name} className="choice" data-state={c.state}>
                    <input
                      type="radio"
                      id={id}
                      name={o.name}
                      value={c.name}
                      checked={current === c.name}
                      onChange={() => pick(o.name, c.name)}
                      aria-describedby={c.state !== "available" ? `${id}-note` : undefined}
                    />
                    <label htmlFor={id} title={c.state !== "available" ? `${c.name}: ${STATE_NOTE[c.state]}` : c.name}>
                      {o.color && c.swatch ? (
                        <>
                          <span className="swatch" style={{ background: c.swatch }} aria-hidden="true" />
                          <span className="visually-hidden">{c.name}</span>
                        </>
                      ) : (
                        c.name
                      )}
                    </label>
                    {c.state !== "available" && (
                      <span id={`${id}-note`} className="visually-hidden">
                        {STATE_NOTE[c.state]}
                      </span>
                    )}
                  </span>
                );
              })}
            </div>
          </fieldset>
        );
      })}
      <button type="submit" className="button secondary js-hidden">
        Show selection
      </button>
    </Form>
  );
}
