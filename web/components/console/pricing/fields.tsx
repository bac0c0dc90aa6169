import type { ReactNode } from "react";
import { Field, Select } from "#web/components/ui/form";

/** Field groups the pricing edit pages share; each input is given bound to its API path by useEditor's `field`. */

/** What `field(path, stored)` gives an input: its id, name, value and error. */
export interface Bound {
  id: string;
  name: string;
  defaultValue: string;
  error: string | undefined;
}

type Options = readonly (readonly [string, string])[];

/** A money or number input (a decimal keyboard on phones). */
export function DecimalField(props: Bound & { label: string; hint?: ReactNode }) {
  return <Field {...props} inputMode="decimal" />;
}

/** The kind of a discount or charge and the one input that takes its percent or amount. */
export function KindAndAmount(props: { kind: Bound; kindLabel: string; kinds: Options; amount: Bound; amountLabel: string; hint: string }) {
  return (
    <>
      <Select {...props.kind} label={props.kindLabel} options={props.kinds} />
      <DecimalField {...props.amount} label={props.amountLabel} hint={props.hint} />
    </>
  );
}

/** When an item applies, as two UTC date-times in a row; an empty end means no end. */
export function TimeWindow(props: { start: Bound; end: Bound; labels: readonly [start: string, end: string]; startHint: string }) {
  return (
    <div className="console-row">
      <Field {...props.start} type="datetime-local" label={props.labels[0]} hint={props.startHint} />
      <Field {...props.end} type="datetime-local" label={props.labels[1]} hint="Empty: no end." />
    </div>
  );
}
