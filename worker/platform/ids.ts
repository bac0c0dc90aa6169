/** New entity id: a random UUID, as the Wix APIs use. */
export function newId(): string {
  return crypto.randomUUID();
}

/** The variant id of a product without options (the Wix convention). */
export const DEFAULT_VARIANT_ID = "00000000-0000-0000-0000-000000000000";

/** The built-in collection every product belongs to (the Wix "All Products" id). */
export const ALL_PRODUCTS_COLLECTION_ID = "00000000-000000-000000-000000000001";

/** A URL slug from a name: lower case, ASCII letters and digits joined by single dashes. */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 80)
    .replace(/-+$/g, "");
  return slug || "item";
}

/** SHA-256 of a string (as UTF-8) or of bytes, as lower-case hex (API keys and tokens are stored by hash). */
export async function sha256Hex(text: string | Uint8Array<ArrayBuffer>): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", typeof text === "string" ? new TextEncoder().encode(text) : text);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
