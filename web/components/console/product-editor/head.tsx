import { Form, Link } from "react-router";
import { Badge } from "#web/components/console/badge";

/**
 * The product editor page's head and its side parts: the heading with View in shop (or Hidden), Duplicate and
 * Delete…, the delete confirmation (reached by ?delete, so it works without JavaScript), and the images strip.
 */

export interface EditorHeadProps {
  id: string | null;
  name: string;
  slug: string;
  shown: boolean;
  canWrite: boolean;
  confirmDelete: boolean;
  /** The intent being sent, or "". */
  busy: string;
}

/** The heading and, for a stored product, its actions. */
export function EditorHead({ id, name, slug, shown, canWrite, confirmDelete, busy }: EditorHeadProps) {
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
    </>
  );
}

/** The question before a product is deleted: delete for good, or keep it. */
export function DeleteConfirm({ name, busy }: { name: string; busy: string }) {
  return (
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
  );
}

/** The product's first images with a link to manage them, or a link to add some. */
export function MediaStrip({ id, media }: { id: string; media: readonly { id: string; url: string; alt: string }[] }) {
  if (media.length === 0)
    return (
      <p>
        <Link to={`/console/products/${id}/media`}>Add images →</Link>
      </p>
    );
  return (
    <section aria-labelledby="media-title" className="editor-media">
      <h2 id="media-title">Images</h2>
      <ul>
        {media.map((m) => (
          <li key={m.id}>
            <img src={m.url} alt={m.alt} width={96} height={96} loading="lazy" decoding="async" />
          </li>
        ))}
      </ul>
      <Link className="console-side-link" to={`/console/products/${id}/media`}>
        Manage images →
      </Link>
    </section>
  );
}
