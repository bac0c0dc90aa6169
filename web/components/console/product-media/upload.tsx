import { type DragEvent, type FormEvent, useRef, useState } from "react";
import { useFetcher, useNavigation } from "react-router";
import { MAX_IMAGE_BYTES } from "#worker/media";
import { ErrorSummary, FileField, type Problem } from "#web/components/ui/form";

/** What the media page's action answers: a notice or a problem, for which intent and item. */
export interface MediaResult {
  ok: string | null;
  intent: string;
  problem: Problem | null;
  values: { mediaId: string; altText: string };
}

const MB = 1_048_576;

/**
 * The "Add images" section: a file field that is also a drop zone. With JavaScript the files are checked for size
 * first and sent without leaving the page (one request, or one per file when together they are too large);
 * without, the form posts as a page and `pageResult` is its answer.
 */
export function MediaUpload({ productId, pageResult }: { productId: string; pageResult: MediaResult | undefined }) {
  const navigation = useNavigation();
  const upload = useFetcher<MediaResult>({ key: `media-upload-${productId}` });
  const fileInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [clientError, setClientError] = useState<string | null>(null);
  const [progress, setProgress] = useState<string | null>(null);
  const uploadResult = upload.data ?? pageResult;
  const uploading = upload.state !== "idle" || (navigation.state === "submitting" && navigation.formData?.get("intent") === "upload");
  const fileError = clientError ?? (uploadResult?.problem?.fields.file || undefined);

  /** Sends the chosen or dropped files: at most 10 MB each; one request, or one per file when together they are larger. */
  const send = async (files: File[]) => {
    setClientError(null);
    if (!files.length) return setClientError("Choose at least one image to upload.");
    const tooBig = files.filter((f) => f.size > MAX_IMAGE_BYTES);
    if (tooBig.length) {
      return setClientError(
        `${tooBig.map((f) => `"${f.name}" is ${(f.size / MB).toFixed(1)} MB: images may be at most ${MAX_IMAGE_BYTES / MB} MB`).join("; ")}.`,
      );
    }
    const batches = files.reduce((n, f) => n + f.size, 0) <= MAX_IMAGE_BYTES ? [files] : files.map((f) => [f]);
    for (const [i, batch] of batches.entries()) {
      if (batches.length > 1) setProgress(`Uploading ${i + 1} of ${batches.length}…`);
      const body = new FormData();
      body.set("intent", "upload");
      for (const f of batch) body.append("file", f, f.name);
      await upload.submit(body, { method: "post", encType: "multipart/form-data" });
    }
    setProgress(null);
    if (fileInput.current) fileInput.current.value = "";
  };
  const onSubmit = (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    void send([...(fileInput.current?.files ?? [])]);
  };
  const onDrop = (e: DragEvent<HTMLElement>) => {
    e.preventDefault();
    setDragging(false);
    if (!uploading) void send([...e.dataTransfer.files]);
  };

  return (
    <section aria-labelledby="media-upload-title" className="media-upload">
      <h2 id="media-upload-title">Add images</h2>
      <upload.Form
        method="post"
        encType="multipart/form-data"
        className={`media-drop${dragging ? " dragging" : ""}`}
        onSubmit={onSubmit}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        aria-busy={uploading || undefined}
        data-testid="media-drop"
      >
        <input type="hidden" name="intent" value="upload" />
        <ErrorSummary problem={uploadResult?.problem} fieldIds={{ file: "media-file" }} />
        <FileField
          ref={fileInput}
          id="media-file"
          name="file"
          label="Images"
          hint="JPEG, PNG, GIF, WebP or AVIF, up to 10 MB each. Choose files, or drop them here."
          multiple
          accept="image/*"
          error={fileError}
        />
        <div className="console-actions">
          <button type="submit" className="console-button primary" disabled={uploading}>
            {uploading ? "Uploading…" : "Upload"}
          </button>
          <span role="status" className="console-muted">
            {uploading ? (progress ?? "Uploading…") : (uploadResult?.ok ?? "")}
          </span>
        </div>
      </upload.Form>
    </section>
  );
}
