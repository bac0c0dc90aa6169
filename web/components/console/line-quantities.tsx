import { Fragment, type ReactNode } from "react";
import { Field } from "../ui/form";

/** What an editor's `field(path, stored)` gives a quantity input: its id, name, value and error. */
interface Bound {
  id: string;
  name: string;
  defaultValue: string;
  error: string | undefined;
}

/**
 * One quantity input a line of an order (to ship, to refund), named `lineItems[i].quantity` with the line's id hidden
 * beside it as `lineItems[i].<idName>`; each is labelled with the line's name and `note`, and allows 0 to what is left.
 */
export function LineQuantityFields<L extends { id: string; name: string }>(props: {
  lines: readonly L[];
  idName: string;
  left: (line: L) => number;
  field: (path: string, left: number) => Bound;
  note: (line: L, left: number) => ReactNode;
}) {
  return props.lines.map((l, i) => {
    const left = props.left(l);
    return (
      <Fragment key={l.id}>
        <input type="hidden" name={`lineItems[${i}].${props.idName}`} value={l.id} />
        <Field
          {...props.field(`lineItems[${i}].quantity`, left)}
          label={
            <>
              {l.name} <span className="console-muted">{props.note(l, left)}</span>
            </>
          }
          className="order-qty-field"
          type="number"
          min={0}
          max={left}
        />
      </Fragment>
    );
  });
}
