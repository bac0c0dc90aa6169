import { useEffect, useMemo, useRef, useState } from "react";
import { Form } from "react-router";
import { ErrorSummary, fieldId, type Problem } from "#web/components/ui/form";
import { NAMES, syncVariants, usedOptions, withSpareRows, type EditorValues, type OptionValues, type VariantValues } from "../product-form";
import { EditorContext } from "./field";
import { DetailFields, MoreFields, ProductFields } from "./general";
import { OptionFields } from "./options";
import { PriceFields } from "./price";
import { StockFields } from "./stock";
import { VariantFields } from "./variants";

/** What the editor needs from the page's loader besides the values it starts from. */
export interface EditorData {
  id: string | null;
  canWrite: boolean;
  canStock: boolean;
  currency: string;
  unsupported: string[];
  brands: string[];
  ribbons: string[];
}

/**
 * The product editor's form: its sections, Save (also Ctrl/Cmd+S), and with JavaScript a variant grid that follows
 * the options as they are typed (without, "Update variants" asks the server). `problem` is a refused save's.
 */
export function ProductEditor({
  data: d,
  initial,
  problem,
  busy,
}: {
  data: EditorData;
  initial: EditorValues;
  problem: Problem | null;
  busy: string;
}) {
  const { id, canWrite, canStock, currency } = d;
  const [options, setOptions] = useState<OptionValues[]>(initial.options);
  const [variants, setVariants] = useState<VariantValues[]>(initial.variants);
  const [track, setTrack] = useState(initial.trackInventory);
  const [discountType, setDiscountType] = useState(initial.discountType);
  const [price, setPrice] = useState(initial.price);
  const [cost, setCost] = useState(initial.cost);
  const [hydrated, setHydrated] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const saveRef = useRef<HTMLButtonElement>(null);
  const state = useMemo(() => ({ err: (field: string) => problem?.fields[field], canWrite }), [problem, canWrite]);

  useEffect(() => setHydrated(true), []);
  // Ctrl/Cmd+S saves, as in any editor a merchant uses.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s" && saveRef.current && !saveRef.current.disabled) {
        e.preventDefault();
        formRef.current?.requestSubmit(saveRef.current);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const changeOptions = (next: OptionValues[]) => {
    const spare = withSpareRows(next);
    setOptions(spare);
    setVariants((rows) => syncVariants({ options: spare, variants: rows, price, trackInventory: track }));
  };
  const setOption = (i: number, patch: Partial<OptionValues>) => changeOptions(options.map((o, k) => (k === i ? { ...o, ...patch } : o)));
  const setChoice = (i: number, j: number, patch: Partial<OptionValues["choices"][number]>) =>
    setOption(i, { choices: options[i].choices.map((c, k) => (k === j ? { ...c, ...patch } : c)) });
  const setVariant = (k: number, patch: Partial<VariantValues>) => setVariants((rows) => rows.map((r, i) => (i === k ? { ...r, ...patch } : r)));
  const hasOptions = usedOptions(options).length > 0;

  return (
    <EditorContext.Provider value={state}>
      <Form method="post" ref={formRef} className="console-form product-editor" aria-label={id ? "Edit product" : "New product"} noValidate>
        <div className="editor-bar">
          <button
            ref={saveRef}
            type="submit"
            name="intent"
            value="save"
            className="console-button primary"
            disabled={!canWrite || !!busy}
            aria-keyshortcuts="Control+S Meta+S"
          >
            {busy === "save" ? "Saving…" : id ? "Save" : "Create product"}
          </button>
          <span className="console-muted">Ctrl+S saves</span>
        </div>
        <ErrorSummary problem={problem} fieldIds={fieldId} />
        <input type="hidden" name={NAMES.descriptionOriginal} value={initial.descriptionOriginal} />
        <input type="hidden" name={NAMES.seoExtra} value={initial.seoExtra} />
        <ProductFields initial={initial} unsupported={d.unsupported} />
        <PriceFields
          initial={initial}
          currency={currency}
          price={price}
          cost={cost}
          discountType={discountType}
          onPrice={setPrice}
          onCost={setCost}
          onDiscountType={setDiscountType}
        />
        <DetailFields initial={initial} brands={d.brands} ribbons={d.ribbons} />
        <StockFields id={id} initial={initial} track={track} onTrack={setTrack} hasOptions={hasOptions} canStock={canStock} />
        <OptionFields
          options={options}
          hydrated={hydrated}
          onOption={setOption}
          onChoice={setChoice}
          onRemove={(i) => changeOptions(options.filter((_, k) => k !== i))}
        />
        {variants.length > 0 && hasOptions && <VariantFields variants={variants} track={track} canStock={canStock} onVariant={setVariant} />}
        <MoreFields initial={initial} />
      </Form>
    </EditorContext.Provider>
  );
}
