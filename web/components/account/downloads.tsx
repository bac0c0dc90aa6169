import type { OrderDownloads } from "#worker/downloads";

const sizeText = (bytes: number) => (bytes >= 1_048_576 ? `${(bytes / 1_048_576).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);
const dayText = (iso: string) => new Date(iso).toLocaleDateString("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

/** Why an item cannot be downloaded right now, in the shopper's words. */
function closedText(d: OrderDownloads, used: number, limit: number): string {
  if (d.availability === "NOT_PAID") return "Available once your payment is received.";
  if (d.availability === "REFUNDED") return "No longer available: this order was refunded.";
  if (used >= limit) return `Downloaded ${limit} times, the most allowed.`;
  return "This download link has expired.";
}

/** The order's digital items: a download link for each while the order's downloads are open, else why not. */
export function Downloads({ downloads }: { downloads: OrderDownloads | null }) {
  if (!downloads?.downloads.length) return null;
  return (
    <section aria-labelledby="downloads-title" className="order-downloads">
      <h2 id="downloads-title">Downloads</h2>
      <ul>
        {downloads.downloads.map((d) => (
          <li key={d.lineItemId}>
            {d.url && d.downloadsUsed < d.downloadLimit ? (
              <>
                <a href={d.url} download={d.fileName}>{`Download ${d.productName}`}</a>
                {` (${d.fileName}, ${sizeText(d.size)}) · ${d.downloadLimit - d.downloadsUsed} of ${d.downloadLimit} downloads left, until ${dayText(d.expiresDate!)}`}
              </>
            ) : (
              `${d.productName} (${d.fileName}): ${closedText(downloads, d.downloadsUsed, d.downloadLimit)}`
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
