import { describedBy, FieldError, fieldId } from "#web/components/ui/form";
import { type EditorValues, NAMES, sectionName } from "../product-form";
import { EditorInput, EditorSelect, EditorTextarea, useEditorState } from "./field";

const TYPES = [
  ["physical", "Physical (shipped)"],
  ["digital", "Digital"],
] as const;

/** The editor's "Product" fieldset: name, address, description (Markdown), type and visibility. */
export function ProductFields({ initial, unsupported }: { initial: EditorValues; unsupported: readonly string[] }) {
  const { err, canWrite } = useEditorState();
  const description = fieldId(NAMES.description);
  const error = err(NAMES.description);
  return (
    <fieldset>
      <legend>Product</legend>
      <EditorInput name={NAMES.name} label="Name" defaultValue={initial.name} required maxLength={80} autoComplete="off" />
      <EditorInput
        name={NAMES.slug}
        label="Address (slug)"
        defaultValue={initial.slug}
        maxLength={100}
        hint="The end of the product's web address, /products/…; left empty, it is made from the name."
      />
      <div className="console-field">
        <label htmlFor={description}>Description</label>
        <textarea
          id={description}
          name={NAMES.description}
          rows={8}
          defaultValue={initial.description}
          maxLength={16000}
          disabled={!canWrite}
          {...describedBy(description, true, !!error)}
        />
        <p className="console-muted" id={`${description}-hint`}>
          Blank lines separate paragraphs. **bold**, *italic*, [a link](https://…), “- ” starts a list item, “## ” a heading.
          {unsupported.length > 0 &&
            ` This description also holds ${unsupported.join(", ").toLowerCase()} content that this editor cannot show: changing the text replaces it.`}
        </p>
        <FieldError id={`${description}-error`} message={error} />
      </div>
      <div className="console-row">
        <EditorSelect name={NAMES.productType} label="Type" options={TYPES} defaultValue={initial.productType} />
        <label className="console-check">
          <input type="checkbox" name={NAMES.visible} defaultChecked={initial.visible} disabled={!canWrite} /> Shown in the shop
        </label>
      </div>
    </fieldset>
  );
}

/** The editor's "Details" fieldset: SKU, weight, and brand and ribbon with the ones in use to pick from. */
export function DetailFields({ initial, brands, ribbons }: { initial: EditorValues; brands: readonly string[]; ribbons: readonly string[] }) {
  return (
    <fieldset>
      <legend>Details</legend>
      <div className="console-row">
        <EditorInput name={NAMES.sku} label="SKU" defaultValue={initial.sku} maxLength={40} autoComplete="off" />
        <EditorInput name={NAMES.weight} label="Weight" defaultValue={initial.weight} inputMode="decimal" maxLength={12} />
        <EditorInput name={NAMES.brand} label="Brand" defaultValue={initial.brand} maxLength={50} list="editor-brands" autoComplete="off" />
        <EditorInput
          name={NAMES.ribbon}
          label="Ribbon"
          defaultValue={initial.ribbon}
          maxLength={30}
          list="editor-ribbons"
          autoComplete="off"
          hint="A short label on the product card, e.g. New."
        />
      </div>
      <datalist id="editor-brands">
        {brands.map((b) => (
          <option key={b} value={b} />
        ))}
      </datalist>
      <datalist id="editor-ribbons">
        {ribbons.map((r) => (
          <option key={r} value={r} />
        ))}
      </datalist>
    </fieldset>
  );
}

/** The editor's information sections (one blank to add another) and its search-engine title and description. */
export function MoreFields({ initial }: { initial: EditorValues }) {
  return (
    <>
      <fieldset>
        <legend>Information sections</legend>
        <p className="console-muted">Shown under the description, e.g. Care or Returns. Empty both fields to remove one.</p>
        {initial.sections.map((s, i) => (
          <div key={i} className="editor-section">
            <EditorInput name={sectionName(i, "title")} label={`Section ${i + 1} title`} defaultValue={s.title} maxLength={50} />
            <EditorTextarea
              name={sectionName(i, "description")}
              label={`Section ${i + 1} text`}
              rows={3}
              defaultValue={s.description}
              maxLength={16000}
            />
          </div>
        ))}
      </fieldset>
      <fieldset>
        <legend>Search engines</legend>
        <EditorInput
          name={NAMES.seoTitle}
          label="Page title"
          defaultValue={initial.seoTitle}
          maxLength={200}
          hint="Left empty, the product name is used."
        />
        <EditorTextarea name={NAMES.seoDescription} label="Meta description" rows={2} defaultValue={initial.seoDescription} maxLength={1000} />
      </fieldset>
    </>
  );
}
