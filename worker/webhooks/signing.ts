/**
 * Webhook signatures, with WebCrypto only:
 * - Standard Webhooks (standardwebhooks.com): `whsec_` secrets, `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`,
 *   several space-separated signatures per request during a key rotation;
 * - the Wix format: a compact RS256 JWT whose `data` claim holds the JSON-in-JSON envelope, verified
 *   with an RSA public key (PEM SPKI, or that PEM base64-encoded on one line).
 */

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function base64Encode(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let binary = "";
  for (let i = 0; i < view.length; i += 0x8000) binary += String.fromCharCode(...view.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Decodes base64 or base64url (padding optional); null when it is not base64. */
export function base64Decode(text: string): Uint8Array<ArrayBuffer> | null {
  const normal = text.replace(/-/g, "+").replace(/_/g, "/").replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(normal)) return null;
  try {
    const binary = atob(normal.padEnd(Math.ceil(normal.length / 4) * 4, "="));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

const base64url = (bytes: Uint8Array | ArrayBuffer) => base64Encode(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

// ---------------------------------------------------------------------------------------------------------------
// Standard Webhooks

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function generateSecret(): string {
  return `whsec_${base64Encode(crypto.getRandomValues(new Uint8Array(32)))}`;
}

/** The key bytes of a `whsec_` secret, or null when it is not one (Standard Webhooks allows 24 to 64 bytes). */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> | null {
  if (!secret.startsWith("whsec_")) return null;
  const bytes = base64Decode(secret.slice("whsec_".length));
  return bytes && bytes.length >= 24 && bytes.length <= 64 ? bytes : null;
}

function hmacKey(secret: string, usage: "sign" | "verify"): Promise<CryptoKey> {
  const bytes = secretKeyBytes(secret);
  if (!bytes) throw new Error("not a whsec_ secret");
  return crypto.subtle.importKey("raw", bytes, { name: "HMAC", hash: "SHA-256" }, false, [usage]);
}

/** The `webhook-signature` value for one secret: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`. */
export async function standardSignature(secret: string, id: string, timestamp: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret, "sign"), encoder.encode(`${id}.${timestamp}.${body}`));
  return `v1,${base64Encode(mac)}`;
}

/**
 * Whether any `v1,` signature in the header was made with any of the secrets over `id.timestamp.body`.
 * crypto.subtle.verify compares in constant time.
 */
export async function verifyStandardSignature(secrets: string[], id: string, timestamp: string, body: string, header: string): Promise<boolean> {
  const candidates = header
    .split(" ")
    .map((part) => part.trim())
    .filter((part) => part.startsWith("v1,"))
    .map((part) => base64Decode(part.slice(3)))
    .filter((sig): sig is Uint8Array<ArrayBuffer> => sig !== null && sig.length === 32);
  if (candidates.length === 0) return false;
  const signed = encoder.encode(`${id}.${timestamp}.${body}`);
  for (const secret of secrets) {
    const key = await hmacKey(secret, "verify");
    for (const sig of candidates) if (await crypto.subtle.verify("HMAC", key, sig, signed)) return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------------------------
// RSA keys and RS256 JWTs

const RS256 = { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" } as const;

function pemBody(pem: string, label: string): Uint8Array<ArrayBuffer> | null {
  const m = new RegExp(`-----BEGIN ${label}-----([\\s\\S]+?)-----END ${label}-----`).exec(pem);
  return m ? base64Decode(m[1]) : null;
}

function toPem(der: Uint8Array | ArrayBuffer, label: string): string {
  const lines = base64Encode(der).match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join("\n")}\n-----END ${label}-----\n`;
}

/**
 * Reads an RSA public key given as a PEM SPKI, or as that PEM base64-encoded on one line (the two forms the Wix SDK
 * accepts). Returns the key and its PEM, or null when it is neither.
 */
export async function importPublicKey(input: string): Promise<{ key: CryptoKey; pem: string } | null> {
  let text = input.trim();
  if (!text.includes("-----BEGIN")) {
    const decoded = base64Decode(text);
    text = decoded ? decoder.decode(decoded) : "";
  }
  const der = pemBody(text, "PUBLIC KEY");
  if (!der) return null;
  try {
    const key = await crypto.subtle.importKey("spki", der, RS256, true, ["verify"]);
    return { key, pem: toPem(der, "PUBLIC KEY") };
  } catch {
    return null;
  }
}

/** The shop's RSA signing key pair, from a PKCS#8 private key given as PEM or as base64 of its DER (one line). */
export interface ShopKey {
  privateKey: CryptoKey;
  publicKeyPem: string;
}

const shopKeys = new Map<string, Promise<ShopKey>>();

/** Imports (once per isolate) the shop's private key and derives its public key PEM. */
export function shopKey(configured: string): Promise<ShopKey> {
  let found = shopKeys.get(configured);
  if (!found) {
    found = (async () => {
      const text = configured.trim();
      const der = text.includes("-----BEGIN") ? pemBody(text, "PRIVATE KEY") : base64Decode(text);
      if (!der) throw new Error("WEBHOOK_SIGNING_KEY is not a PKCS#8 RSA private key (PEM or base64 DER)");
      const privateKey = await crypto.subtle.importKey("pkcs8", der, RS256, true, ["sign"]);
      // The public half is the private key's modulus and exponent.
      const { n, e } = (await crypto.subtle.exportKey("jwk", privateKey)) as JsonWebKey;
      const publicKey = await crypto.subtle.importKey("jwk", { kty: "RSA", n, e, alg: "RS256", ext: true }, RS256, true, ["verify"]);
      return { privateKey, publicKeyPem: toPem(await crypto.subtle.exportKey("spki", publicKey), "PUBLIC KEY") };
    })();
    found.catch(() => shopKeys.delete(configured));
    shopKeys.set(configured, found);
  }
  return found;
}

/** A compact RS256 JWT of `claims`. */
export async function signJwt(privateKey: CryptoKey, claims: Record<string, unknown>): Promise<string> {
  const head = base64url(encoder.encode(JSON.stringify({ alg: "RS256", typ: "JWT" })));
  const body = base64url(encoder.encode(JSON.stringify(claims)));
  const sig = await crypto.subtle.sign(RS256, privateKey, encoder.encode(`${head}.${body}`));
  return `${head}.${body}.${base64url(sig)}`;
}

export type JwtCheck = { ok: true; claims: Record<string, unknown> } | { ok: false; reason: string };

/** How far the sender's clock may be off when `exp`, `nbf` and `iat` are judged. */
export const JWT_CLOCK_SKEW_SECONDS = 30;

/**
 * Verifies a compact JWT as the Wix SDK does (jose's jwtVerify with an RS256 key): RS256 only, a signature by one of
 * the keys, `exp` / `nbf` honoured when present (numbers, with a small clock skew). Unlike jose it also requires
 * freshness: an `exp` (not past), or else an `iat` within `maxAgeSeconds` of now, so an old token is never taken.
 */
export async function verifyJwt(token: string, keys: CryptoKey[], nowSeconds: number, maxAgeSeconds: number): Promise<JwtCheck> {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, reason: "the body is not a compact JWT" };
  const [head, body, sig] = parts.map(base64Decode);
  if (!head || !body || !sig) return { ok: false, reason: "the JWT is not base64url" };
  let header: { alg?: unknown };
  let claims: Record<string, unknown>;
  try {
    header = JSON.parse(decoder.decode(head));
    claims = JSON.parse(decoder.decode(body));
  } catch {
    return { ok: false, reason: "the JWT header or payload is not JSON" };
  }
  if (header.alg !== "RS256") return { ok: false, reason: `the JWT must be signed with RS256 (got ${String(header.alg)})` };
  const signed = encoder.encode(`${parts[0]}.${parts[1]}`);
  let valid = false;
  for (const key of keys) if (!valid && (await crypto.subtle.verify(RS256, key, sig, signed))) valid = true;
  if (!valid) return { ok: false, reason: "the JWT signature does not match the source's public key" };
  if (claims === null || typeof claims !== "object" || Array.isArray(claims)) return { ok: false, reason: "the JWT payload is not an object" };
  for (const claim of ["exp", "nbf", "iat"] as const) {
    if (claims[claim] !== undefined && (typeof claims[claim] !== "number" || !Number.isFinite(claims[claim])))
      return { ok: false, reason: `the JWT's ${claim} claim must be a number (seconds)` };
  }
  const { exp, nbf, iat } = claims as { exp?: number; nbf?: number; iat?: number };
  if (exp !== undefined && nowSeconds >= exp + JWT_CLOCK_SKEW_SECONDS) return { ok: false, reason: "the JWT has expired" };
  if (nbf !== undefined && nowSeconds < nbf - JWT_CLOCK_SKEW_SECONDS) return { ok: false, reason: "the JWT is not valid yet" };
  if (iat !== undefined && iat > nowSeconds + JWT_CLOCK_SKEW_SECONDS)
    return { ok: false, reason: "the JWT was issued in the future (its iat is ahead of now)" };
  if (exp === undefined && (iat === undefined || nowSeconds - iat > maxAgeSeconds)) {
    return { ok: false, reason: `the JWT needs an exp claim, or an iat within ${Math.round(maxAgeSeconds / 60)} minutes of now` };
  }
  return { ok: true, claims };
}
