import { useEffect, useRef } from "react";
import { Form } from "react-router";
import { Checkbox, ErrorSummary, Field, fieldId, TextArea } from "#web/components/ui/form";
import { type EditResult, useEditor } from "#web/components/ui/page";

/**
 * The collection details form shared by "New collection" and a collection's page: name, slug, description, image,
 * visibility, each input named by its API field path. What the merchant typed comes back after a refused save, so
 * nothing is lost; each error sits under its field. Ctrl/Cmd+S saves, as in any editor.
 */

export interface CollectionFormValues {
  name: string;
  slug: string;
  description: string;
  imageUrl: string;
  visible: boolean;
}

/** The details form: `result` is the refused save, if any. */
export function CollectionForm({
  initial,
  result,
  submitLabel,
  busy,
  slugHint,
}: {
  initial: CollectionFormValues;
  result: EditResult | null | undefined;
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
  const ed = useEditor(result, "catalog.write");
  return (
    <Form method="post" encType="multipart/form-data" className="console-form collection-form" ref={form} aria-label="Collection details">
      <input type="hidden" name="intent" value="save" />
      <input type="hidden" name="mediaUrlBefore" value={initial.imageUrl} />
      <ErrorSummary problem={result?.problem} fieldIds={fieldId} />
      <Field label="Name" required maxLength={50} {...ed.field("name", initial.name)} />
      <Field label="Slug" hint={slugHint} maxLength={100} autoCapitalize="none" spellCheck={false} {...ed.field("slug", initial.slug)} />
      <TextArea label="Description" maxLength={2000} rows={4} {...ed.field("description", initial.description)} />
      <Field
        label="Image URL"
        hint="An address starting with https:// or a path on this site (/media/…). Leave empty for no image."
        inputMode="url"
        maxLength={2048}
        {...ed.field("media.url", initial.imageUrl)}
      />
      <Field
        label="Or upload an image"
        hint="JPEG, PNG, GIF, WebP or AVIF, at most 10 MB. It replaces the image URL above when you save."
        type="file"
        accept="image/jpeg,image/png,image/gif,image/webp,image/avif"
        id={fieldId("imageFile")}
        name="imageFile"
        error={ed.error("imageFile")}
      />
      {initial.imageUrl && !result?.values && (
        <img className="collection-image-preview" src={initial.imageUrl} alt="The collection's current image" width={120} height={120} />
      )}
      <Checkbox label="Visible in the shop" {...ed.check("visible", initial.visible)} />
      <div className="console-actions">
        <button type="submit" className="console-button primary" disabled={busy} aria-keyshortcuts="Control+S Meta+S">
          {busy ? "Saving…" : submitLabel}
        </button>
      </div>
    </Form>
  );
}
