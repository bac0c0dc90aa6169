/**
 * Password hashing: PBKDF2-SHA-256 through WebCrypto, a random 16-byte salt per hash, stored in the self-describing
 * form `pbkdf2-sha256$<iterations>$<salt b64url>$<hash b64url>` so the iteration count can grow later and old hashes
 * still verify. 100000 iterations is the most Cloudflare's production runtime accepts ("Pbkdf2 failed: iteration
 * counts above 100000 are not supported", workerd#1346); the open-source workerd used locally does not enforce that
 * cap, so tests/identity/passwords.test.ts guards it. Plain passwords are never stored or logged.
 */

export const PBKDF2_ITERATIONS = 100_000;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const SCHEME = "pbkdf2-sha256";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 128;

function toB64url(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromB64url(text: string): Uint8Array<ArrayBuffer> | null {
  try {
    const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(bin, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

async function derive(password: string, salt: Uint8Array<ArrayBuffer>, iterations: number): Promise<Uint8Array> {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(password), "PBKDF2", false, ["deriveBits"]);
  const bits = await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt, iterations }, key, HASH_BITS);
  return new Uint8Array(bits);
}

/** Equal-length byte arrays compared without an early exit. */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

/** Hashes a password with a new random salt. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return `${SCHEME}$${PBKDF2_ITERATIONS}$${toB64url(salt)}$${toB64url(hash)}`;
}

// A fixed hash to check against when there is no stored one (unknown email, no password factor): the answer takes
// as long as a real check, so response times do not tell which emails have accounts.
const DUMMY_HASH = `${SCHEME}$${PBKDF2_ITERATIONS}$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`;

/** Whether `password` matches a stored hash (false for null or a malformed hash), in time independent of where they differ. */
export async function verifyPassword(password: string, stored: string | null | undefined): Promise<boolean> {
  const parts = (stored ?? DUMMY_HASH).split("$");
  const malformed = parts.length !== 4 || parts[0] !== SCHEME;
  const iterations = Number(parts[1]);
  const salt = fromB64url(parts[2] ?? "");
  const expected = fromB64url(parts[3] ?? "");
  if (malformed || !Number.isInteger(iterations) || iterations < 1 || iterations > PBKDF2_ITERATIONS || !salt || !expected) {
    await derive(password, new Uint8Array(SALT_BYTES), PBKDF2_ITERATIONS);
    return false;
  }
  const actual = await derive(password, salt, iterations);
  return constantTimeEqual(actual, expected) && stored != null;
}
