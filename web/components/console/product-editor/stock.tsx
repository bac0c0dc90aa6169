import { Link } from "react-router";
import { type EditorValues, NAMES } from "../product-form";
import { EditorInput, useEditorState } from "./field";

/**
 * The editor's "Stock" fieldset: tracking, and for a product without options its quantity or in-stock tick (only
 * for staff who may change stock: `canStock`).
 */
export function StockFields({
  id,
  initial,
  track,
  onTrack,
  hasOptions,
  canStock,
}: {
  id: string | null;
  initial: EditorValues;
  track: boolean;
  onTrack: (on: boolean) => void;
  hasOptions: boolean;
  canStock: boolean;
}) {
  const { canWrite } = useEditorState();
  return (
    <fieldset>
      <legend>Stock</legend>
      <label className="console-check">
        <input type="checkbox" name={NAMES.trackInventory} checked={track} onChange={(e) => onTrack(e.target.checked)} disabled={!canWrite} /> Track
        quantities (each sale counts down)
      </label>
      {!canStock && <p className="console-muted">Quantities are changed by staff with the permission to “Change stock”.</p>}
      {!hasOptions &&
        (track ? (
          <EditorInput
            name={NAMES.quantity}
            label="Quantity"
            defaultValue={initial.quantity}
            inputMode="numeric"
            maxLength={9}
            disabled={!canWrite || !canStock}
          />
        ) : (
          <label className="console-check">
            <input type="checkbox" name={NAMES.inStock} defaultChecked={initial.inStock} disabled={!canWrite || !canStock} /> In stock
          </label>
        ))}
      {id && (
        <p>
          <Link to={`/console/inventory/${id}`}>Preorder, adjustments and stock history →</Link>
        </p>
      )}
    </fieldset>
  );
}
