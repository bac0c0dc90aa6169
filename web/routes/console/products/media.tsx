import { useRef, useState, type DragEvent, type FormEvent } from "react";
import { data, Form, Link, useFetcher, useNavigation, useRouteLoaderData } from "react-router";
import {
  addProductMedia,
  productMediaView,
  releaseUnusedMedia,
  removeProductMedia,
  reorderProductMedia,
  setChoiceMedia,
  setProductMediaAltText,
} from "#worker/catalog";
import { ensureStored, MAX_IMAGE_BYTES, uploadImages, type UploadFile } from "#worker/media";
import { ApiError, badField } from "#worker/platform/errors";
import { Badge } from "#web/components/console/badge";
import { AskFirstForm } from "#web/components/console/confirm";
import { ErrorSummary, FieldError, type Problem } from "#web/components/ui/form";
import { CONSOLE, problemOf } from "#web/components/ui/form.server";
import { consoleTitle } from "#web/components/console/title";
import { consoleHeaders, requireStaff } from "#web/console.server";
import "#web/styles/console-media.css";
import type { loader as layoutLoader } from "#web/routes/console/layout";
import type { Route } from "./+types/media";

export function meta({ data: d, matches }: Route.MetaArgs) {
  return [{ title: consoleTitle(matches, d?.product ? `Media of ${d.product.name} — Console` : "Media — Console") }];
}

export const headers = () => consoleHeaders;

/** The product's media in order, with its options for choice links: one D1 read (2 round trips with the session). */
export async function loader({ context, request, params }: Route.LoaderArgs) {
  requireStaff(context, request);
  try {
    return { product: await productMediaView(context.services, params.id) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 404) throw data("No such product.", { status: 404 });
    throw err;
  }
}

type Intent = "upload" | "reorder" | "remove" | "alt" | "choice";

/** A pixel size the catalogue accepts (a header may claim more than any real image has). */
const size = (n: number | null) => (n && n <= 20_000 ? n : undefined);

/**
 * Upload (images checked and stored in R2, then added to the product in one write), reorder, remove, alt text and
 * choice links, each through the catalogue and media services (catalog.write). A refused upload stores and adds
 * nothing; an upload the product then refuses (e.g. over 50 items) has its new files released again.
 */
export async function action({ context, request, params }: Route.ActionArgs) {
  requireStaff(context, request);
  const ctx = context.services;
  const id = params.id;
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "") as Intent;
  const mediaId = String(form.get("mediaId") ?? "");
  const values = { mediaId, altText: String(form.get("altText") ?? "") };
  try {
    switch (intent) {
      case "upload": {
        // A form sent without a chosen file still carries one empty, nameless part.
        const files = form.getAll("file").filter((f): f is File => typeof f !== "string" && !(f.size === 0 && !f.name)) as UploadFile[];
        const uploaded = await uploadImages(ctx, files, "file");
        try {
          await addProductMedia(
            ctx,
            id,
            uploaded.map((u) => ({ url: u.url, width: size(u.width), height: size(u.height) })),
          );
        } catch (err) {
          ctx.waitUntil(
            releaseUnusedMedia(
              ctx,
              uploaded.map((u) => u.url),
            ),
          );
          throw err;
        }
        await ensureStored(ctx, files, uploaded);
        return { ok: `Uploaded ${uploaded.length === 1 ? "1 image" : `${uploaded.length} images`}.`, intent, problem: null, values };
      }
      case "reorder": {
        const order = String(form.get("order") ?? "")
          .split(",")
          .filter(Boolean);
        await reorderProductMedia(ctx, id, order);
        return { ok: "Order saved.", intent, problem: null, values };
      }
      case "remove":
        await removeProductMedia(ctx, id, [mediaId]);
        return { ok: "Image removed.", intent, problem: null, values };
      case "alt":
        await setProductMediaAltText(ctx, id, mediaId, values.altText);
        return { ok: values.altText.trim() ? "Alt text saved." : "Alt text cleared.", intent, problem: null, values };
      case "choice": {
        let option = "";
        let choice = "";
        try {
          [option, choice] = JSON.parse(String(form.get("choice") ?? "")) as [string, string];
        } catch {
          throw badField("choice", "Choose an option and a choice");
        }
        const mode = form.get("mode") === "remove" ? "remove" : "add";
        await setChoiceMedia(ctx, id, [{ option: String(option), choice: String(choice), mediaIds: [mediaId] }], mode);
        return {
          ok: mode === "add" ? `Shown for ${option}: ${choice}.` : `No longer shown for ${option}: ${choice}.`,
          intent,
          problem: null,
          values,
        };
      }
      default:
        throw new ApiError(400, "UNKNOWN_INTENT", "Unknown action");
    }
  } catch (err) {
    const problem: Problem = problemOf(err, CONSOLE);
    return data({ ok: null, intent, problem, values }, { status: problem.status ?? 400 });
  }
}

const MB = 1_048_576;

export default function ProductMedia({ loaderData, actionData }: Route.ComponentProps) {
  const { product } = loaderData;
  const user = useRouteLoaderData<typeof layoutLoader>("routes/console/layout")?.user;
  const canWrite = !!user?.permissions.includes("catalog.write");
  const navigation = useNavigation();
  const upload = useFetcher<typeof action>({ key: `media-upload-${product.id}` });
  const fileInput = useRef<HTMLInputElement>(null);
  const [dragging, setDragging] = useState(false);
  const [clientError, setClientError] = useState<string | null>(null);
  const [progress, setProgress] = useState<string | null>(null);

  // Without JavaScript the upload form posts as a page, so its answer is the page's action data.
  const result = actionData;
  const uploadResult = upload.data ?? (result?.intent === "upload" ? result : undefined);
  const itemResult = result && result.intent !== "upload" ? result : undefined;
  const uploading = upload.state !== "idle" || (navigation.state === "submitting" && navigation.formData?.get("intent") === "upload");
  const fileError = clientError ?? (uploadResult?.problem?.fields.file || undefined);

  // Optimistic: a reorder or removal in flight shows its outcome at once, until the page's data has caught up (the
  // submission's formData stays set while the loaders revalidate).
  const pending = navigation.formData;
  let media = product.media;
  if (pending?.get("intent") === "reorder") {
    const order = String(pending.get("order") ?? "").split(",");
    if (order.length === media.length) media = order.map((mid) => media.find((m) => m.id === mid)!).filter(Boolean);
  } else if (pending?.get("intent") === "remove") {
    media = media.filter((m) => m.id !== pending.get("mediaId"));
  }
  const ids = media.map((m) => m.id);
  const moved = (from: number, to: number) => {
    const next = [...ids];
    const [it] = next.splice(from, 1);
    next.splice(to, 0, it);
    return next.join(",");
  };

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

  const choices = product.productOptions.flatMap((o) => o.choices.map((c) => ({ option: o.name, choice: c.description, mediaIds: c.mediaIds })));

  return (
    <>
      <p>
        <Link to="/console/products">← Products</Link>
      </p>
      <h1>Media of {product.name}</h1>
      <p className="console-muted">
        The first image is the main image, shown on product cards and first on the product page.
        {product.visible && (
          <>
            {" "}
            <a href={`/products/${product.slug}`} target="_blank" rel="noopener">
              View in shop
            </a>
          </>
        )}
      </p>
      {itemResult?.ok && (
        <p className="console-notice" role="status">
          {itemResult.ok}
        </p>
      )}
      {itemResult?.problem && (
        <ErrorSummary problem={itemResult.problem} fieldIds={itemResult.values.mediaId ? { altText: `alt-${itemResult.values.mediaId}` } : {}} />
      )}
      {!canWrite && (
        <p className="console-muted">Changing media needs the permission to “Edit products, collections and media” from the store owner.</p>
      )}

      {canWrite && (
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
            <div className="console-field">
              <label htmlFor="media-file">Images</label>
              <p className="hint" id="media-file-hint">
                JPEG, PNG, GIF, WebP or AVIF, up to 10 MB each. Choose files, or drop them here.
              </p>
              <input
                ref={fileInput}
                id="media-file"
                name="file"
                type="file"
                multiple
                accept="image/*"
                aria-invalid={fileError ? true : undefined}
                aria-describedby={fileError ? "media-file-hint media-file-error" : "media-file-hint"}
              />
              <FieldError id="media-file-error" message={fileError} />
            </div>
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
      )}

      <h2>Images ({media.length})</h2>
      {media.length === 0 ? (
        <p className="console-muted">No images yet.</p>
      ) : (
        <ol className="media-list">
          {media.map((m, i) => {
            const label = m.altText || `image ${i + 1}`;
            const linked = choices.filter((c) => c.mediaIds.includes(m.id));
            const altProblem = itemResult?.values.mediaId === m.id && itemResult.intent === "alt" ? itemResult.problem?.fields.altText : undefined;
            return (
              <li key={m.id} className="media-item" aria-label={`${i === 0 ? "Main image" : `Image ${i + 1}`}${m.altText ? `: ${m.altText}` : ""}`}>
                <div className="media-thumb">
                  {m.mediaType === "image" ? (
                    <img src={m.url} alt={m.altText ?? ""} width={m.width} height={m.height} loading="lazy" decoding="async" />
                  ) : (
                    <span className="media-video">Video</span>
                  )}
                </div>
                <p className="media-caption">
                  {i === 0 ? <Badge tone="good">Main image</Badge> : <span className="console-muted">Image {i + 1}</span>}{" "}
                  <span className="console-muted">
                    {m.width} × {m.height}
                  </span>
                </p>
                {linked.length > 0 && (
                  <ul className="media-choices" aria-label="Shown for">
                    {linked.map((c) => (
                      <li key={`${c.option}:${c.choice}`}>
                        <span>
                          {c.option}: {c.choice}
                        </span>
                        {canWrite && (
                          <Form method="post" className="media-inline">
                            <input type="hidden" name="intent" value="choice" />
                            <input type="hidden" name="mode" value="remove" />
                            <input type="hidden" name="mediaId" value={m.id} />
                            <input type="hidden" name="choice" value={JSON.stringify([c.option, c.choice])} />
                            <button type="submit" className="media-link-button">
                              Detach
                              <span className="visually-hidden">
                                {" "}
                                {label} from {c.option}: {c.choice}
                              </span>
                            </button>
                          </Form>
                        )}
                      </li>
                    ))}
                  </ul>
                )}
                {canWrite && (
                  <>
                    <Form method="post" className="media-actions">
                      <input type="hidden" name="intent" value="reorder" />
                      {i > 0 && (
                        <button type="submit" name="order" value={moved(i, 0)} className="console-button">
                          Make main image<span className="visually-hidden"> ({label})</span>
                        </button>
                      )}
                      <button type="submit" name="order" value={moved(i, i - 1)} className="console-button" disabled={i === 0}>
                        Move up<span className="visually-hidden"> {label}</span>
                      </button>
                      <button type="submit" name="order" value={moved(i, i + 1)} className="console-button" disabled={i === media.length - 1}>
                        Move down<span className="visually-hidden"> {label}</span>
                      </button>
                    </Form>
                    <Form method="post" className="media-alt">
                      <input type="hidden" name="intent" value="alt" />
                      <input type="hidden" name="mediaId" value={m.id} />
                      <div className="console-field">
                        <label htmlFor={`alt-${m.id}`}>Alt text</label>
                        <div className="media-inline-row">
                          <input
                            id={`alt-${m.id}`}
                            name="altText"
                            maxLength={300}
                            defaultValue={altProblem ? itemResult?.values.altText : (m.altText ?? "")}
                            aria-invalid={altProblem ? true : undefined}
                            aria-describedby={altProblem ? `alt-${m.id}-error` : undefined}
                          />
                          <button type="submit" className="console-button">
                            Save<span className="visually-hidden"> alt text of {label}</span>
                          </button>
                        </div>
                        <FieldError id={`alt-${m.id}-error`} message={altProblem} />
                      </div>
                    </Form>
                    {choices.length > 0 && m.mediaType === "image" && (
                      <Form method="post" className="media-choice">
                        <input type="hidden" name="intent" value="choice" />
                        <input type="hidden" name="mode" value="add" />
                        <input type="hidden" name="mediaId" value={m.id} />
                        <div className="console-field">
                          <label htmlFor={`choice-${m.id}`}>Show for a choice</label>
                          <div className="media-inline-row">
                            <select id={`choice-${m.id}`} name="choice">
                              {product.productOptions.map((o) => (
                                <optgroup key={o.id} label={o.name}>
                                  {o.choices.map((c) => (
                                    <option key={c.description} value={JSON.stringify([o.name, c.description])}>
                                      {o.name}: {c.description}
                                    </option>
                                  ))}
                                </optgroup>
                              ))}
                            </select>
                            <button type="submit" className="console-button">
                              Attach<span className="visually-hidden"> {label}</span>
                            </button>
                          </div>
                        </div>
                      </Form>
                    )}
                    <AskFirstForm question={`Remove ${label} from ${product.name}?`}>
                      <input type="hidden" name="intent" value="remove" />
                      <input type="hidden" name="mediaId" value={m.id} />
                      <button type="submit" className="console-button danger">
                        Remove<span className="visually-hidden"> {label}</span>
                      </button>
                    </AskFirstForm>
                  </>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </>
  );
}
