import { useEffect, useRef } from "react";
import { Form } from "react-router";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";

/**
 * The collection details form shared by "New collection" and a collection's page: name, slug, description, image,
 * visibility. What the merchant typed comes back in `values` after a refused save, so nothing is lost; each error
 * sits under its field. Ctrl/Cmd+S saves, as in any editor.
 */

/** Form field ids by the API field path a violation names. */
export const COLLECTION_FIELD_IDS: Record<string, string> = {
  name: "collection-name",
  slug: "collection-slug",
  description: "collection-description",
  "media.url": "collection-image",
  imageFile: "collection-file",
};

export interface CollectionFormValues {
  name: string;
  slug: string;
  description: string;
  imageUrl: string;
  visible: boolean;
}

export function CollectionForm({
  initial,
  values,
  problem,
  submitLabel,
  busy,
  slugHint,
}: {
  initial: CollectionFormValues;
  /** What was posted, after a refused save. */
  values?: Record<string, string> | null;
  problem?: Problem | null;
  submitLabel: string;
  busy: boolean;
  slugHint: string;
}) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "s") {
        e.preventDefault();
        form.current?.requestSubmit();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const fields = problem?.fields ?? {};
  const text = (key: keyof CollectionFormValues & string) => values?.[key] ?? String(initial[key] ?? "");
  const visible = values ? values.visible === "on" : initial.visible;
  const invalid = (path: string) =>
    fields[path] ? { "aria-invalid": true as const, "aria-describedby": `${COLLECTION_FIELD_IDS[path]}-error` } : {};
  return (
    <Form method="post" encType="multipart/form-data" className="console-form collection-form" ref={form} aria-label="Collection details">
      <input type="hidden" name="intent" value="save" />
      <input type="hidden" name="imageUrlBefore" value={initial.imageUrl} />
      <ErrorSummary problem={problem} fieldIds={COLLECTION_FIELD_IDS} />
      <div className="console-field">
        <label htmlFor="collection-name">Name</label>
        <input id="collection-name" name="name" required maxLength={50} defaultValue={text("name")} {...invalid("name")} />
        <FieldError id="collection-name-error" message={fields.name} />
      </div>
      <div className="console-field">
        <label htmlFor="collection-slug">Slug</label>
        <p className="hint" id="collection-slug-hint">
          {slugHint}
        </p>
        <input
          id="collection-slug"
          name="slug"
          maxLength={100}
          defaultValue={text("slug")}
          autoCapitalize="none"
          spellCheck={false}
          aria-invalid={fields.slug ? true : undefined}
          aria-describedby={fields.slug ? "collection-slug-error collection-slug-hint" : "collection-slug-hint"}
        />
        <FieldError id="collection-slug-error" message={fields.slug} />
      </div>
      <div className="console-field">
        <label htmlFor="collection-description">Description</label>
        <textarea
          id="collection-description"
          name="description"
          maxLength={2000}
          rows={4}
          defaultValue={text("description")}
          {...invalid("description")}
        />
        <FieldError id="collection-description-error" message={fields.description} />
      </div>
      <div className="console-field">
        <label htmlFor="collection-image">Image URL</label>
        <p className="hint" id="collection-image-hint">
          An address starting with https:// or a path on this site (/media/…). Leave empty for no image.
        </p>
        <input
          id="collection-image"
          name="imageUrl"
          inputMode="url"
          maxLength={2048}
          defaultValue={text("imageUrl")}
          aria-invalid={fields["media.url"] ? true : undefined}
          aria-describedby={fields["media.url"] ? "collection-image-error collection-image-hint" : "collection-image-hint"}
        />
        <FieldError id="collection-image-error" message={fields["media.url"]} />
      </div>
      <div className="console-field">
        <label htmlFor="collection-file">Or upload an image</label>
        <p className="hint" id="collection-file-hint">
          JPEG, PNG, GIF, WebP or AVIF, at most 10 MB. It replaces the image URL above when you save.
        </p>
        <input
          id="collection-file"
          name="imageFile"
          type="file"
          accept="image/jpeg,image/png,image/gif,image/webp,image/avif"
          aria-invalid={fields.imageFile ? true : undefined}
          aria-describedby={fields.imageFile ? "collection-file-error collection-file-hint" : "collection-file-hint"}
        />
        <FieldError id="collection-file-error" message={fields.imageFile} />
        {initial.imageUrl && !values && (
          <img className="collection-image-preview" src={initial.imageUrl} alt="The collection's current image" width={120} height={120} />
        )}
      </div>
      <label className="console-check">
        <input type="checkbox" name="visible" defaultChecked={visible} /> Visible in the shop
      </label>
      <div className="console-actions">
        <button type="submit" className="console-button primary" disabled={busy} aria-keyshortcuts="Control+S Meta+S">
          {busy ? "Saving…" : submitLabel}
        </button>
      </div>
    </Form>
  );
}
