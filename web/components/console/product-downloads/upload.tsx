import { useId, useState } from "react";
import { useRevalidator } from "react-router";

/** What the upload endpoint answers on a refusal: the API's error shape. */
interface Refusal {
  message?: string;
  details?: { applicationError?: { description?: string }; validationError?: { fieldViolations?: { field: string; description: string }[] } };
}

function refusalText(status: number, body: string): string {
  try {
    const r = JSON.parse(body) as Refusal;
    const v = r.details?.validationError?.fieldViolations?.[0];
    return v ? `${v.field} ${v.description}` : (r.details?.applicationError?.description ?? r.message ?? `Upload failed (${status})`);
  } catch {
    return `Upload failed (${status})`;
  }
}

/**
 * Uploads one file for the product (or a variant) straight from the browser: the raw bytes in a PUT, streamed by
 * the Worker into storage, with a progress bar. Needs JavaScript (a file this size is not sent as a page form).
 */
export function FileUpload({
  productId,
  variantId,
  label,
  replacing,
}: {
  productId: string;
  variantId: string | null;
  label: string;
  replacing: boolean;
}) {
  const id = useId();
  const { revalidate } = useRevalidator();
  const [progress, setProgress] = useState<number | null>(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);

  const send = (file: File) => {
    const q = new URLSearchParams({ fileName: file.name, ...(variantId ? { variantId } : {}) });
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", `/console/products/${encodeURIComponent(productId)}/downloads?${q}`);
    xhr.setRequestHeader("content-type", file.type || "application/octet-stream");
    xhr.upload.onprogress = (e) => e.lengthComputable && setProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () => {
      setProgress(null);
      if (xhr.status === 200) {
        setMessage({ ok: true, text: `Uploaded ${file.name}.` });
        void revalidate();
      } else setMessage({ ok: false, text: refusalText(xhr.status, xhr.responseText) });
    };
    xhr.onerror = () => {
      setProgress(null);
      setMessage({ ok: false, text: "The upload was interrupted: check the connection and try again." });
    };
    setMessage(null);
    setProgress(0);
    xhr.send(file);
  };

  return (
    <form
      className="console-inline-form"
      onSubmit={(e) => {
        e.preventDefault();
        const file = (e.currentTarget.elements.namedItem("file") as HTMLInputElement).files?.[0];
        if (file) send(file);
        else setMessage({ ok: false, text: "Choose a file first." });
      }}
    >
      <input id={id} type="file" name="file" aria-label={`File for ${label}`} disabled={progress !== null} />
      <button type="submit" className="console-button" disabled={progress !== null}>
        {replacing ? "Replace" : "Upload"}
      </button>
      {progress !== null && (
        <progress max={100} value={progress} aria-label={`Uploading the file for ${label}`}>
          {progress}%
        </progress>
      )}
      {message && (
        <span role={message.ok ? "status" : "alert"} className={message.ok ? "console-notice" : "console-error"}>
          {message.text}
        </span>
      )}
    </form>
  );
}
