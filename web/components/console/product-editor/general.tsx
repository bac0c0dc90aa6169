import { FieldError } from "#web/components/ui/form";
import type { EditorValues } from "../product-form";
import { EditorInput, EditorTextarea, useEditorState } from "./field";

/** The editor's "Product" fieldset: name, address, description (Markdown), type and visibility. */
export function ProductFields({ initial, unsupported }: { initial: EditorValues; unsupported: readonly string[] }) {
  const { err, canWrite } = useEditorState();
  return (
    <fieldset>
      <legend>Product</legend>
      <EditorInput id="name" label="Name" defaultValue={initial.name} required maxLength={80} autoComplete="off" />
      <EditorInput
        id="slug"
        label="Address (slug)"
        defaultValue={initial.slug}
        maxLength={100}
        hint="The end of the product's web address, /products/…; left empty, it is made from the name."
      />
      <div className="console-field">
        <label htmlFor="description">Description</label>
        <textarea
          id="description"
          name="description"
          rows={8}
          defaultValue={initial.description}
          maxLength={16000}
          disabled={!canWrite}
          aria-describedby={["description-hint", err("description") ? "description-error" : ""].filter(Boolean).join(" ")}
          aria-invalid={err("description") ? true : undefined}
        />
        <p className="console-muted" id="description-hint">
          Blank lines separate paragraphs. **bold**, *italic*, [a link](https://…), “- ” starts a list item, “## ” a heading.
          {unsupported.length > 0 &&
            ` This description also holds ${unsupported.join(", ").toLowerCase()} content that this editor cannot show: changing the text replaces it.`}
        </p>
        <FieldError id="description-error" message={err("description")} />
      </div>
      <div className="console-row">
        <div className="console-field">
          <label htmlFor="productType">Type</label>
          <select id="productType" name="productType" defaultValue={initial.productType} disabled={!canWrite}>
            <option value="physical">Physical (shipped)</option>
            <option value="digital">Digital</option>
          </select>
        </div>
        <label className="console-check">
          <input type="checkbox" name="visible" defaultChecked={initial.visible} disabled={!canWrite} /> Shown in the shop
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
        <EditorInput id="sku" label="SKU" defaultValue={initial.sku} maxLength={40} autoComplete="off" />
        <EditorInput id="weight" label="Weight" defaultValue={initial.weight} inputMode="decimal" maxLength={12} />
        <EditorInput id="brand" label="Brand" defaultValue={initial.brand} maxLength={50} list="editor-brands" autoComplete="off" />
        <EditorInput
          id="ribbon"
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
  const { canWrite } = useEditorState();
  return (
    <>
      <fieldset>
        <legend>Information sections</legend>
        <p className="console-muted">Shown under the description, e.g. Care or Returns. Empty both fields to remove one.</p>
        {initial.sections.map((s, i) => (
          <div key={i} className="editor-section">
            <EditorInput
              id={`section-${i}-title`}
              label={`Section ${i + 1} title`}
              name={`section.${i}.title`}
              defaultValue={s.title}
              maxLength={50}
            />
            <EditorTextarea
              id={`section-${i}-description`}
              name={`section.${i}.description`}
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
        <EditorInput id="seoTitle" label="Page title" defaultValue={initial.seoTitle} maxLength={200} hint="Left empty, the product name is used." />
        <div className="console-field">
          <label htmlFor="seoDescription">Meta description</label>
          <textarea id="seoDescription" name="seoDescription" rows={2} defaultValue={initial.seoDescription} maxLength={1000} disabled={!canWrite} />
        </div>
      </fieldset>
    </>
  );
}
