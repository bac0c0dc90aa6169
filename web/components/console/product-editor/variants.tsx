import type { InputHTMLAttributes } from "react";
import { describedBy, FieldError, fieldId } from "#web/components/ui/form";
import { type VariantValues, variantName } from "../product-form";
import { useEditorState } from "./field";

type Typed = "price" | "cost" | "sku" | "weight" | "quantity";

/** The variant grid: a row per combination of choices with its price, cost, SKU, weight, visibility and stock. */
export function VariantFields({
  variants,
  track,
  canStock,
  onVariant,
}: {
  variants: VariantValues[];
  track: boolean;
  canStock: boolean;
  onVariant: (k: number, patch: Partial<VariantValues>) => void;
}) {
  const { err, canWrite } = useEditorState();
  return (
    <fieldset>
      <legend>Variants ({variants.length})</legend>
      <div className="console-scroll">
        <table className="console-table editor-variants">
          <caption className="visually-hidden">Each variant's price, cost, SKU, weight, visibility and stock</caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Price</th>
              <th scope="col">Cost</th>
              <th scope="col">SKU</th>
              <th scope="col">Weight</th>
              <th scope="col">Shown</th>
              <th scope="col">{track ? "Quantity" : "In stock"}</th>
            </tr>
          </thead>
          <tbody>
            {variants.map((v, k) => {
              const label = Object.values(v.choices).join(" / ");
              const cell = (field: Typed, props: InputHTMLAttributes<HTMLInputElement> = {}) => {
                const name = variantName(k, field);
                const id = fieldId(name);
                const e = err(name);
                return (
                  <td>
                    <input
                      id={id}
                      name={name}
                      value={v[field]}
                      onChange={(ev) => onVariant(k, { [field]: ev.target.value })}
                      aria-label={`${field === "sku" ? "SKU" : field[0].toUpperCase() + field.slice(1)} of ${label}`}
                      {...describedBy(id, false, !!e)}
                      disabled={!canWrite}
                      {...props}
                    />
                    <FieldError id={`${id}-error`} message={e} />
                  </td>
                );
              };
              const tick = (field: "visible" | "inStock", text: string, disabled: boolean) => (
                <td>
                  <input
                    type="checkbox"
                    name={variantName(k, field)}
                    checked={v[field]}
                    onChange={(e) => onVariant(k, { [field]: e.target.checked })}
                    aria-label={`${label} ${text}`}
                    disabled={disabled}
                  />
                </td>
              );
              return (
                <tr key={JSON.stringify(v.choices)}>
                  <th scope="row">
                    <input type="hidden" name={variantName(k, "choices")} value={JSON.stringify(v.choices)} />
                    {label}
                  </th>
                  {cell("price", { inputMode: "decimal", maxLength: 20, size: 8 })}
                  {cell("cost", { inputMode: "decimal", maxLength: 20, size: 8 })}
                  {cell("sku", { maxLength: 40, size: 10 })}
                  {cell("weight", { inputMode: "decimal", maxLength: 12, size: 6 })}
                  {tick("visible", "shown in the shop", !canWrite)}
                  {track
                    ? cell("quantity", { inputMode: "numeric", maxLength: 9, size: 6, disabled: !canWrite || !canStock })
                    : tick("inStock", "in stock", !canWrite || !canStock)}
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </fieldset>
  );
}
