import { useEffect, useMemo, useRef, useState } from "react";
import { data, Form, Link, redirect, useNavigation, useSearchParams } from "react-router";
import {
  createProduct,
  createProductRequest,
  deleteProduct,
  duplicateProduct,
  loadProductEditor,
  updateProduct,
  MEASUREMENT_UNITS,
  updateProductRequest,
} from "#worker/catalog";
import { formatMoney, toMinor } from "#worker/platform/money";
import { parseWith } from "#worker/platform/validation";
import { Badge } from "#web/components/console/badge";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import {
  readEditorForm,
  syncVariants,
  usedOptions,
  withSpareRows,
  withSpareSection,
  type EditorValues,
  type OptionValues,
  type VariantValues,
} from "#web/components/console/product-form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { editorValuesFrom, productFromEditor } from "#web/components/console/product-form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-editor.css";
import type { Route } from "./+types/edit";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.id ? `${d.name} — Console` : "New product — Console") }];
}

export const headers = () => consoleHeaders;

/** The product (any visibility) and the brands and ribbons in use: one batch (2 D1 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  const user = requireStaff(context, request);
  const id = params.productId ?? null;
  const ctx = context.services;
  const { product, brands, ribbons } = await loadProductEditor(ctx, id);
  if (id && !product) throw data("No such product.", { status: 404 });
  const { unsupported, ...values } = editorValuesFrom(product, ctx.currency);
  return {
    id,
    name: product?.row.name ?? "",
    slug: product?.row.slug ?? "",
    shown: product?.row.visible ?? false,
    media: (product?.row.media ?? [])
      .filter((m) => m.mediaType === "image")
      .slice(0, 8)
      .map((m) => ({ id: m.id, url: m.url, alt: m.altText ?? "" })),
    currency: ctx.currency,
    values,
    unsupported,
    brands,
    ribbons,
    canWrite: user.permissions.includes("catalog.write"),
    // A new product's opening stock is part of creating it; changing an existing one's is a stock change.
    canStock: !id || user.permissions.includes("inventory.write"),
  };
}

/**
 * Save (create or update through the catalogue service, with the same body the API takes), preview the variant grid
 * for edited options without saving (the form without JavaScript), duplicate, delete. A refused save writes nothing
 * and comes back with every typed value and each error next to its field.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  const user = requireStaff(context, request);
  const ctx = context.services;
  const id = params.productId ?? null;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  try {
    if (intent === "delete" && id) {
      await deleteProduct(ctx, id);
      return redirect(`/console/products?deleted=${encodeURIComponent(String(form.get("name") ?? "").slice(0, 80))}`);
    }
    if (intent === "duplicate" && id) {
      const copy = await duplicateProduct(ctx, id);
      return redirect(`/console/products/${copy.id}?duplicated=1`);
    }
  } catch (err) {
    const problem = problemOf(err, CONSOLE);
    return data({ values: null, problem, intent, stamp: Date.now() }, { status: problem.status ?? 400 });
  }

  const values = readEditorForm(form);
  const again = { ...values, options: withSpareRows(values.options), sections: withSpareSection(values.sections) };
  if (intent === "preview") return { values: again, problem: null, intent, stamp: Date.now() };
  if (intent !== "save")
    return data({ values: again, problem: { message: "Unknown action.", fields: {} } as Problem, intent, stamp: Date.now() }, { status: 400 });

  const { product, fieldId } = productFromEditor(values, { isNew: !id, stock: !id || user.permissions.includes("inventory.write") });
  try {
    if (!id) {
      const created = await createProduct(ctx, parseWith(createProductRequest, { product }).product);
      return redirect(`/console/products/${created.id}?saved=1`);
    }
    await updateProduct(ctx, id, parseWith(updateProductRequest, { product }).product);
    return redirect(`/console/products/${id}?saved=1`);
  } catch (err) {
    const raw = problemOf(err, CONSOLE);
    // Errors keyed by the form's input ids, so each shows next to its field.
    const fields: Record<string, string> = {};
    for (const [path, text] of Object.entries(raw.fields)) fields[fieldId(path) ?? path] ??= text;
    if (raw.code === "DUPLICATE_SLUG") fields.slug = "Another product already uses this slug";
    return data({ values: again, problem: { ...raw, fields }, intent, stamp: Date.now() }, { status: raw.status ?? 400 });
  }
}

export default function ProductEditPage({ loaderData, actionData }: Route.ComponentProps) {
  const { id, name, slug, shown, media, canWrite } = loaderData;
  const [params] = useSearchParams();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : "";
  const confirmDelete = params.has("delete") && !!id && canWrite;
  const problem = actionData?.problem ?? null;
  return (
    <>
      <p>
        <Link to="/console/products">← Products</Link>
      </p>
      <div className="editor-heading">
        <h1>{id ? name : "New product"}</h1>
        {id && (
          <div className="console-actions">
            {shown ? (
              <a href={`/products/${slug}`} target="_blank" rel="noopener" className="console-button">
                View in shop
              </a>
            ) : (
              <Badge tone="warn">Hidden from shoppers</Badge>
            )}
            {canWrite && (
              <Form method="post">
                <input type="hidden" name="intent" value="duplicate" />
                <button type="submit" className="console-button" disabled={!!busy}>
                  {busy === "duplicate" ? "Duplicating…" : "Duplicate"}
                </button>
              </Form>
            )}
            {canWrite && !confirmDelete && (
              <Link to="?delete" className="console-button danger">
                Delete…
              </Link>
            )}
          </div>
        )}
      </div>
      {params.has("saved") && !actionData && (
        <p className="console-notice" role="status">
          Saved.
        </p>
      )}
      {params.has("duplicated") && !actionData && (
        <p className="console-notice" role="status">
          This is a copy, hidden from shoppers until you show it.
        </p>
      )}
      {confirmDelete && (
        <Form method="post" className="console-error editor-confirm" aria-labelledby="delete-title">
          <h2 id="delete-title">Delete “{name}”?</h2>
          <p>It leaves the shop and every collection at once. Orders already placed keep their copy of it. This cannot be undone.</p>
          <input type="hidden" name="intent" value="delete" />
          <input type="hidden" name="name" value={name} />
          <div className="console-actions">
            <button type="submit" className="console-button danger" disabled={!!busy}>
              {busy === "delete" ? "Deleting…" : "Delete for good"}
            </button>
            <Link to="." className="console-button">
              Keep it
            </Link>
          </div>
        </Form>
      )}
      {actionData?.intent !== "save" && actionData?.intent !== "preview" && <ErrorSummary problem={problem} />}
      {!canWrite && <p className="console-muted">Changing products needs the permission to “Edit the catalogue” from the store owner.</p>}
      <Editor
        key={`${actionData?.stamp ?? ""}:${JSON.stringify(loaderData.values).length}:${id}`}
        data={loaderData}
        initial={actionData?.values ?? loaderData.values}
        problem={actionData?.intent === "save" ? problem : null}
        busy={busy}
      />
      {id && media.length > 0 && (
        <section aria-labelledby="media-title" className="editor-media">
          <h2 id="media-title">Images</h2>
          <ul>
            {media.map((m) => (
              <li key={m.id}>
                <img src={m.url} alt={m.alt} width={96} height={96} loading="lazy" decoding="async" />
              </li>
            ))}
          </ul>
          <Link to={`/console/products/${id}/media`}>Manage images →</Link>
        </section>
      )}
      {id && media.length === 0 && (
        <p>
          <Link to={`/console/products/${id}/media`}>Add images →</Link>
        </p>
      )}
    </>
  );
}

type LoaderData = Route.ComponentProps["loaderData"];

function Editor({ data: d, initial, problem, busy }: { data: LoaderData; initial: EditorValues; problem: Problem | null; busy: string }) {
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
  const err = (field: string) => problem?.fields[field];
  const fieldIds = useMemo(() => Object.fromEntries(Object.keys(problem?.fields ?? {}).map((k) => [k, k])), [problem]);

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

  // With JavaScript the grid follows the options as they are typed (without it, "Update variants" asks the server).
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

  const input = (fieldId: string, label: string, props: React.InputHTMLAttributes<HTMLInputElement> & { hint?: string } = {}) => {
    const { hint, ...rest } = props;
    const e = err(fieldId);
    const described = [hint ? `${fieldId}-hint` : "", e ? `${fieldId}-error` : ""].filter(Boolean).join(" ") || undefined;
    return (
      <div className="console-field">
        <label htmlFor={fieldId}>{label}</label>
        <input id={fieldId} name={fieldId} aria-invalid={e ? true : undefined} aria-describedby={described} disabled={!canWrite} {...rest} />
        {hint && (
          <p className="console-muted" id={`${fieldId}-hint`}>
            {hint}
          </p>
        )}
        <FieldError id={`${fieldId}-error`} message={e} />
      </div>
    );
  };
  const money = (text: string) => {
    const n = Number(text.replace(/,/g, ""));
    return text.trim() && Number.isFinite(n) ? n : null;
  };
  const p = money(price);
  const c = money(cost);
  const profit =
    p !== null && c !== null
      ? { amount: formatMoney(toMinor(p - c, currency), currency), margin: p > 0 ? Math.round(((p - c) / p) * 1000) / 10 : 0 }
      : null;

  return (
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
      <ErrorSummary problem={problem} fieldIds={fieldIds} />
      <input type="hidden" name="descriptionOriginal" value={initial.descriptionOriginal} />
      <input type="hidden" name="seoExtra" value={initial.seoExtra} />

      <fieldset>
        <legend>Product</legend>
        {input("name", "Name", { defaultValue: initial.name, required: true, maxLength: 80, autoComplete: "off" })}
        {input("slug", "Address (slug)", {
          defaultValue: initial.slug,
          maxLength: 100,
          hint: "The end of the product's web address, /products/…; left empty, it is made from the name.",
        })}
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
            {d.unsupported.length > 0 &&
              ` This description also holds ${d.unsupported.join(", ").toLowerCase()} content that this editor cannot show: changing the text replaces it.`}
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

      <fieldset>
        <legend>Price</legend>
        <div className="console-row">
          {input("price", `Price (${currency})`, {
            value: price,
            onChange: (e) => setPrice(e.target.value),
            inputMode: "decimal",
            required: true,
            maxLength: 20,
          })}
          {input("cost", `Cost (${currency})`, {
            value: cost,
            onChange: (e) => setCost(e.target.value),
            inputMode: "decimal",
            maxLength: 20,
            hint: "What the item costs you; shoppers never see it.",
          })}
          <p className="editor-profit" aria-live="polite">
            {profit ? `Profit ${profit.amount} · margin ${profit.margin}%` : "Profit: give a price and a cost"}
          </p>
        </div>
        <div className="console-row">
          <div className="console-field">
            <label htmlFor="discountType">Discount</label>
            <select
              id="discountType"
              name="discountType"
              value={discountType}
              onChange={(e) => setDiscountType(e.target.value as EditorValues["discountType"])}
              disabled={!canWrite}
            >
              <option value="NONE">None</option>
              <option value="AMOUNT">Amount off</option>
              <option value="PERCENT">Percent off</option>
            </select>
          </div>
          {input("discountValue", discountType === "PERCENT" ? "Percent off" : `Amount off (${currency})`, {
            defaultValue: initial.discountValue,
            inputMode: "decimal",
            maxLength: 20,
          })}
        </div>
        <div className="console-row editor-ppu" role="group" aria-labelledby="ppu-title">
          <p id="ppu-title" className="editor-group-title">
            Price per unit (optional): e.g. the item holds 500 G, shown per 100 G
          </p>
          {input("ppuTotalQuantity", "Item holds", { defaultValue: initial.ppuTotalQuantity, inputMode: "decimal", maxLength: 12 })}
          <UnitSelect id="ppuTotalUnit" label="Unit" value={initial.ppuTotalUnit} error={err("ppuTotalUnit")} disabled={!canWrite} />
          {input("ppuBaseQuantity", "Price shown per", { defaultValue: initial.ppuBaseQuantity, inputMode: "decimal", maxLength: 12 })}
          <UnitSelect id="ppuBaseUnit" label="Unit" value={initial.ppuBaseUnit} error={err("ppuBaseUnit")} disabled={!canWrite} />
        </div>
      </fieldset>

      <fieldset>
        <legend>Details</legend>
        <div className="console-row">
          {input("sku", "SKU", { defaultValue: initial.sku, maxLength: 40, autoComplete: "off" })}
          {input("weight", "Weight", { defaultValue: initial.weight, inputMode: "decimal", maxLength: 12 })}
          {input("brand", "Brand", { defaultValue: initial.brand, maxLength: 50, list: "editor-brands", autoComplete: "off" })}
          {input("ribbon", "Ribbon", {
            defaultValue: initial.ribbon,
            maxLength: 30,
            list: "editor-ribbons",
            autoComplete: "off",
            hint: "A short label on the product card, e.g. New.",
          })}
        </div>
        <datalist id="editor-brands">
          {d.brands.map((b) => (
            <option key={b} value={b} />
          ))}
        </datalist>
        <datalist id="editor-ribbons">
          {d.ribbons.map((r) => (
            <option key={r} value={r} />
          ))}
        </datalist>
      </fieldset>

      <fieldset>
        <legend>Stock</legend>
        <label className="console-check">
          <input type="checkbox" name="trackInventory" checked={track} onChange={(e) => setTrack(e.target.checked)} disabled={!canWrite} /> Track
          quantities (each sale counts down)
        </label>
        {!canStock && <p className="console-muted">Quantities are changed by staff with the permission to “Change stock”.</p>}
        {!hasOptions &&
          (track ? (
            input("quantity", "Quantity", { defaultValue: initial.quantity, inputMode: "numeric", maxLength: 9, disabled: !canWrite || !canStock })
          ) : (
            <label className="console-check">
              <input type="checkbox" name="inStock" defaultChecked={initial.inStock} disabled={!canWrite || !canStock} /> In stock
            </label>
          ))}
        {id && (
          <p>
            <Link to={`/console/inventory/${id}`}>Preorder, adjustments and stock history →</Link>
          </p>
        )}
      </fieldset>

      <fieldset>
        <legend>Options</legend>
        <p className="console-muted">
          Like Size or Colour. Each combination of choices is a variant. To remove a choice or an option, empty its name.
        </p>
        {options.map((o, i) => (
          <div key={i} className="editor-option" role="group" aria-label={o.name ? `Option ${o.name}` : `New option ${i + 1}`}>
            <div className="console-row">
              <div className="console-field">
                <label htmlFor={`option-${i}-name`}>Option name</label>
                <input
                  id={`option-${i}-name`}
                  name={`option.${i}.name`}
                  value={o.name}
                  onChange={(e) => setOption(i, { name: e.target.value })}
                  maxLength={50}
                  disabled={!canWrite}
                  aria-invalid={err(`option-${i}-name`) ? true : undefined}
                  aria-describedby={err(`option-${i}-name`) ? `option-${i}-name-error` : undefined}
                />
                <FieldError id={`option-${i}-name-error`} message={err(`option-${i}-name`)} />
              </div>
              <div className="console-field">
                <label htmlFor={`option-${i}-type`}>Shown as</label>
                <select
                  id={`option-${i}-type`}
                  name={`option.${i}.type`}
                  value={o.type}
                  onChange={(e) => setOption(i, { type: e.target.value as OptionValues["type"] })}
                  disabled={!canWrite}
                >
                  <option value="drop_down">Drop-down list</option>
                  <option value="color">Colour swatches</option>
                </select>
              </div>
              {hydrated && o.name && canWrite && (
                <button type="button" className="console-button" onClick={() => changeOptions(options.filter((_, k) => k !== i))}>
                  Remove option {o.name}
                </button>
              )}
            </div>
            <ul className="editor-choices">
              {o.choices.map((c, j) => (
                <li key={j}>
                  <label htmlFor={`option-${i}-choice-${j}-name`} className="visually-hidden">
                    {`${o.name || "Option"} choice ${j + 1}`}
                  </label>
                  <input
                    id={`option-${i}-choice-${j}-name`}
                    name={`option.${i}.choice.${j}.name`}
                    value={c.name}
                    placeholder={j === o.choices.length - 1 ? "Add a choice" : undefined}
                    onChange={(e) => setChoice(i, j, { name: e.target.value })}
                    maxLength={50}
                    disabled={!canWrite}
                    aria-invalid={err(`option-${i}-choice-${j}-name`) ? true : undefined}
                    aria-describedby={err(`option-${i}-choice-${j}-name`) ? `option-${i}-choice-${j}-name-error` : undefined}
                  />
                  {o.type === "color" && (
                    <>
                      <label htmlFor={`option-${i}-choice-${j}-color`} className="visually-hidden">
                        {`Colour of ${c.name || `choice ${j + 1}`}`}
                      </label>
                      <input
                        type="color"
                        id={`option-${i}-choice-${j}-color`}
                        name={`option.${i}.choice.${j}.color`}
                        value={/^#[0-9a-f]{6}$/i.test(c.color) ? c.color : "#888888"}
                        onChange={(e) => setChoice(i, j, { color: e.target.value })}
                        disabled={!canWrite}
                      />
                    </>
                  )}
                  <FieldError
                    id={`option-${i}-choice-${j}-name-error`}
                    message={err(`option-${i}-choice-${j}-name`) ?? err(`option-${i}-choice-${j}-color`)}
                  />
                </li>
              ))}
            </ul>
          </div>
        ))}
        {!hydrated && canWrite && (
          <button type="submit" name="intent" value="preview" className="console-button">
            Update variants
          </button>
        )}
      </fieldset>

      {variants.length > 0 && hasOptions && (
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
                  const cell = (field: "price" | "cost" | "sku" | "weight" | "quantity", props: React.InputHTMLAttributes<HTMLInputElement> = {}) => {
                    const e = err(`variant-${k}-${field}`);
                    return (
                      <td>
                        <input
                          id={`variant-${k}-${field}`}
                          name={`variant.${k}.${field}`}
                          value={v[field]}
                          onChange={(ev) => setVariant(k, { [field]: ev.target.value })}
                          aria-label={`${field === "sku" ? "SKU" : field[0].toUpperCase() + field.slice(1)} of ${label}`}
                          aria-invalid={e ? true : undefined}
                          aria-describedby={e ? `variant-${k}-${field}-error` : undefined}
                          disabled={!canWrite}
                          {...props}
                        />
                        <FieldError id={`variant-${k}-${field}-error`} message={e} />
                      </td>
                    );
                  };
                  return (
                    <tr key={JSON.stringify(v.choices)}>
                      <th scope="row">
                        <input type="hidden" name={`variant.${k}.choices`} value={JSON.stringify(v.choices)} />
                        {label}
                      </th>
                      {cell("price", { inputMode: "decimal", maxLength: 20, size: 8 })}
                      {cell("cost", { inputMode: "decimal", maxLength: 20, size: 8 })}
                      {cell("sku", { maxLength: 40, size: 10 })}
                      {cell("weight", { inputMode: "decimal", maxLength: 12, size: 6 })}
                      <td>
                        <input
                          type="checkbox"
                          name={`variant.${k}.visible`}
                          checked={v.visible}
                          onChange={(e) => setVariant(k, { visible: e.target.checked })}
                          aria-label={`${label} shown in the shop`}
                          disabled={!canWrite}
                        />
                      </td>
                      {track ? (
                        cell("quantity", { inputMode: "numeric", maxLength: 9, size: 6, disabled: !canWrite || !canStock })
                      ) : (
                        <td>
                          <input
                            type="checkbox"
                            name={`variant.${k}.inStock`}
                            checked={v.inStock}
                            onChange={(e) => setVariant(k, { inStock: e.target.checked })}
                            aria-label={`${label} in stock`}
                            disabled={!canWrite || !canStock}
                          />
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </div>
        </fieldset>
      )}

      <fieldset>
        <legend>Information sections</legend>
        <p className="console-muted">Shown under the description, e.g. Care or Returns. Empty both fields to remove one.</p>
        {initial.sections.map((s, i) => (
          <div key={i} className="editor-section">
            {input(`section-${i}-title`, `Section ${i + 1} title`, { name: `section.${i}.title`, defaultValue: s.title, maxLength: 50 })}
            <div className="console-field">
              <label htmlFor={`section-${i}-description`}>{`Section ${i + 1} text`}</label>
              <textarea
                id={`section-${i}-description`}
                name={`section.${i}.description`}
                rows={3}
                defaultValue={s.description}
                maxLength={16000}
                disabled={!canWrite}
              />
              <FieldError id={`section-${i}-description-error`} message={err(`section-${i}-description`)} />
            </div>
          </div>
        ))}
      </fieldset>

      <fieldset>
        <legend>Search engines</legend>
        {input("seoTitle", "Page title", { defaultValue: initial.seoTitle, maxLength: 200, hint: "Left empty, the product name is used." })}
        <div className="console-field">
          <label htmlFor="seoDescription">Meta description</label>
          <textarea id="seoDescription" name="seoDescription" rows={2} defaultValue={initial.seoDescription} maxLength={1000} disabled={!canWrite} />
        </div>
      </fieldset>
    </Form>
  );
}

function UnitSelect({ id, label, value, error, disabled }: { id: string; label: string; value: string; error?: string; disabled: boolean }) {
  return (
    <div className="console-field">
      <label htmlFor={id}>{label}</label>
      <select
        id={id}
        name={id}
        defaultValue={value}
        disabled={disabled}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
      >
        <option value="">—</option>
        {MEASUREMENT_UNITS.map((u) => (
          <option key={u} value={u}>
            {u}
          </option>
        ))}
      </select>
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}
