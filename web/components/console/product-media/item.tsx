import { Form } from "react-router";
import type { StoredMedia, StoredOption } from "#worker/catalog";
import { Badge } from "#web/components/console/badge";
import { AskFirstForm } from "#web/components/console/confirm";
import { FieldError } from "#web/components/ui/form";
import type { MediaResult } from "./upload";

/**
 * One image of the product's media list: its thumbnail and place, the choices it is shown for, and for someone who
 * may change media: move it, its alt text, attach it to a choice, remove it (asked first).
 */
export function MediaItem({
  m,
  i,
  count,
  productName,
  options,
  choices,
  canWrite,
  itemResult,
  moved,
}: {
  m: StoredMedia;
  i: number;
  count: number;
  productName: string;
  options: readonly StoredOption[];
  choices: readonly { option: string; choice: string; mediaIds: readonly string[] }[];
  canWrite: boolean;
  itemResult: MediaResult | undefined;
  /** The media order with the item at `from` moved to `to`. */
  moved: (from: number, to: number) => string;
}) {
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
            <button type="submit" name="order" value={moved(i, i + 1)} className="console-button" disabled={i === count - 1}>
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
                    {options.map((o) => (
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
          <AskFirstForm question={`Remove ${label} from ${productName}?`}>
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
}
