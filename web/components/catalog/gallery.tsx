import { httpHref } from "#worker/platform/urls";
import { srcSetOf } from "./cards";

/** One picture or video of a product, as the product page shows it. */
export interface GalleryItem {
  id: string;
  kind: "image" | "video";
  url: string;
  alt: string;
  width: number;
  height: number;
  /** The video's poster image. */
  poster?: string;
}

export const GALLERY_SIZES = "(min-width: 56rem) 50vw, 100vw";

/**
 * The media gallery: a row of full-size items that scrolls and snaps (swipe on a phone), with thumbnails that jump
 * to each item. Thumbnails are plain in-page links, so it works without JavaScript. The first image loads eagerly
 * with high priority: it is the page's largest paint.
 */
export function Gallery({ items, name }: { items: GalleryItem[]; name: string }) {
  if (!items.length) return <div className="gallery gallery-empty" aria-label={`${name}: no pictures yet`} role="img" />;
  return (
    <section className="gallery" aria-label={`Pictures of ${name}`}>
      {/* Focusable when it scrolls, so a keyboard can scroll it too. */}
      <ul className="gallery-track" {...(items.length > 1 ? { tabIndex: 0, "aria-label": "Pictures, scroll sideways for more" } : {})}>
        {items.map((m, i) => (
          <li key={m.id} id={`media-${m.id}`} className="gallery-item">
            {m.kind === "video" ? (
              <video controls preload="none" playsInline poster={m.poster} width={m.width} height={m.height} aria-label={m.alt}>
                <source src={m.url} type="video/mp4" />
                {httpHref(m.url, { sitePath: true }) && <a href={httpHref(m.url, { sitePath: true })!}>Watch the video</a>}
              </video>
            ) : (
              <img
                src={m.url}
                srcSet={srcSetOf(m.url, [480, 800, 1200, 1600])}
                sizes={GALLERY_SIZES}
                alt={m.alt}
                width={m.width}
                height={m.height}
                loading={i === 0 ? "eager" : "lazy"}
                fetchPriority={i === 0 ? "high" : undefined}
                decoding={i === 0 ? "sync" : "async"}
              />
            )}
          </li>
        ))}
      </ul>
      {items.length > 1 && (
        <ul className="gallery-thumbs" aria-label="Choose a picture">
          {items.map((m, i) => (
            <li key={m.id}>
              <a href={`#media-${m.id}`} aria-label={`${m.kind === "video" ? "Video" : "Picture"} ${i + 1} of ${items.length}: ${m.alt}`}>
                {m.kind === "video" && !m.poster ? (
                  <span className="thumb-video" aria-hidden="true">
                    ▶
                  </span>
                ) : (
                  <img src={m.kind === "video" ? m.poster : m.url} alt="" width={64} height={64} loading="lazy" decoding="async" />
                )}
              </a>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}
