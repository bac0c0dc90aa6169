import { config, configError } from "#worker/platform/config";

/**
 * Download links are signed, not stored: HMAC-SHA256 (WebCrypto) over the order id, the line id and the expiry, with
 * DOWNLOAD_SIGNING_SECRET. A link carries its expiry in the clear and its signature as base64url, so changing any of
 * the three breaks the signature, and checking one needs no read.
 */

const encoder = new TextEncoder();
const keys = new WeakMap<object, Promise<CryptoKey>>();

/** The signing key's bytes: the configured secret, or outside production one derived from the owner's key. */
async function secretBytes(env: Env): Promise<Uint8Array<ArrayBuffer>> {
  const c = config(env);
  if (c.downloadSigningSecret) return encoder.encode(c.downloadSigningSecret);
  if (c.production) throw configError("DOWNLOAD_SIGNING_SECRET", "is required in production to sign download links");
  // A local run or test without its own secret: stable for the install, never the same as the owner key itself.
  if (!c.ownerApiKey) throw configError("DOWNLOAD_SIGNING_SECRET", "is not set (npm start generates one in .dev.vars)");
  return new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(`download-links\n${c.ownerApiKey}`)));
}

function signingKey(env: Env): Promise<CryptoKey> {
  let key = keys.get(env);
  if (!key) {
    key = secretBytes(env).then((bytes) => crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]));
    // A failure (missing secret) is not kept: the next call says so again.
    key.catch(() => keys.delete(env));
    keys.set(env, key);
  }
  return key;
}

const message = (orderId: string, lineId: string, expires: number) => encoder.encode(`${orderId}\n${lineId}\n${expires}`);

function toBase64Url(bytes: ArrayBuffer): string {
  let s = "";
  for (const b of new Uint8Array(bytes)) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return null;
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  // Only the canonical spelling: the last character's spare bits could otherwise vary without changing the bytes.
  return toBase64Url(out.buffer) === text ? out : null;
}

/** The signature of a download link (base64url of the HMAC-SHA256). `expires` is in Unix seconds. */
export async function signDownload(env: Env, orderId: string, lineId: string, expires: number): Promise<string> {
  return toBase64Url(await crypto.subtle.sign("HMAC", await signingKey(env), message(orderId, lineId, expires)));
}

/** Whether `sig` is the signature of these three values (checked in constant time by WebCrypto). */
export async function verifyDownload(env: Env, orderId: string, lineId: string, expires: number, sig: string): Promise<boolean> {
  const bytes = fromBase64Url(sig);
  if (!bytes) return false;
  return crypto.subtle.verify("HMAC", await signingKey(env), bytes, message(orderId, lineId, expires));
}

/** The site path of a signed download link. */
export async function downloadPath(env: Env, orderId: string, lineId: string, expires: number): Promise<string> {
  const sig = await signDownload(env, orderId, lineId, expires);
  return `/downloads/${encodeURIComponent(orderId)}/${encodeURIComponent(lineId)}?expires=${expires}&sig=${sig}`;
}
