import { formatMoney, toMinor } from "#worker/platform/money";
import { type EditorValues, NAMES } from "../product-form";
import { EditorInput, EditorSelect, UnitSelect } from "./field";

const DISCOUNTS = [
  ["NONE", "None"],
  ["AMOUNT", "Amount off"],
  ["PERCENT", "Percent off"],
] as const;

/** A typed amount as a number (commas allowed), or null when blank or not a number. */
function amount(text: string): number | null {
  const n = Number(text.replace(/,/g, ""));
  return text.trim() && Number.isFinite(n) ? n : null;
}

/**
 * The editor's "Price" fieldset: price and cost with the profit and margin they make (kept by the editor, which
 * gives new variants the price), the discount, and the price per unit.
 */
export function PriceFields({
  initial,
  currency,
  price,
  cost,
  discountType,
  onPrice,
  onCost,
  onDiscountType,
}: {
  initial: EditorValues;
  currency: string;
  price: string;
  cost: string;
  discountType: EditorValues["discountType"];
  onPrice: (text: string) => void;
  onCost: (text: string) => void;
  onDiscountType: (type: EditorValues["discountType"]) => void;
}) {
  const p = amount(price);
  const c = amount(cost);
  const profit =
    p !== null && c !== null
      ? { amount: formatMoney(toMinor(p - c, currency), currency), margin: p > 0 ? Math.round(((p - c) / p) * 1000) / 10 : 0 }
      : null;
  return (
    <fieldset>
      <legend>Price</legend>
      <div className="console-row">
        <EditorInput
          name={NAMES.price}
          label={`Price (${currency})`}
          value={price}
          onChange={(e) => onPrice(e.target.value)}
          inputMode="decimal"
          required
          maxLength={20}
        />
        <EditorInput
          name={NAMES.cost}
          label={`Cost (${currency})`}
          value={cost}
          onChange={(e) => onCost(e.target.value)}
          inputMode="decimal"
          maxLength={20}
          hint="What the item costs you; shoppers never see it."
        />
        <p className="editor-profit" aria-live="polite">
          {profit ? `Profit ${profit.amount} · margin ${profit.margin}%` : "Profit: give a price and a cost"}
        </p>
      </div>
      <div className="console-row">
        <EditorSelect
          name={NAMES.discountType}
          label="Discount"
          options={DISCOUNTS}
          value={discountType}
          onChange={(e) => onDiscountType(e.target.value as EditorValues["discountType"])}
        />
        <EditorInput
          name={NAMES.discountValue}
          label={discountType === "PERCENT" ? "Percent off" : `Amount off (${currency})`}
          defaultValue={initial.discountValue}
          inputMode="decimal"
          maxLength={20}
        />
      </div>
      <div className="console-row editor-ppu" role="group" aria-labelledby="ppu-title">
        <p id="ppu-title" className="editor-group-title">
          Price per unit (optional): e.g. the item holds 500 G, shown per 100 G
        </p>
        <EditorInput name={NAMES.ppuTotalQuantity} label="Item holds" defaultValue={initial.ppuTotalQuantity} inputMode="decimal" maxLength={12} />
        <UnitSelect name={NAMES.ppuTotalUnit} label="Unit" value={initial.ppuTotalUnit} />
        <EditorInput name={NAMES.ppuBaseQuantity} label="Price shown per" defaultValue={initial.ppuBaseQuantity} inputMode="decimal" maxLength={12} />
        <UnitSelect name={NAMES.ppuBaseUnit} label="Unit" value={initial.ppuBaseUnit} />
      </div>
    </fieldset>
  );
}
