/**
 * The one rule for URLs the shop takes and shows: an absolute http: or https: URL (or, where a field says so, a path
 * on this site), never javascript:, data:, vbscript:, file: or another scheme a browser would run or open locally.
 * `httpUrl()` (validation.ts) checks input with it; pages pass stored URLs through `httpHref`. OAuth redirect URIs
 * are the one exception (redirectUriProblem in identity): native apps need custom schemes; script and local ones
 * are still refused.
 */

/** Control characters and whitespace, which browsers strip from a URL before reading its scheme. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this finds.
const UNSAFE_CHARS = /[\u0000-\u0020\u007f-\u009f\u2028\u2029]/;

/** Whether `value` is an absolute http(s) URL with a host. */
export function isHttpUrl(value: string): boolean {
  if (UNSAFE_CHARS.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
}

/** Whether `value` is a path on this site ("/media/x.png"), not a protocol-relative URL ("//host", "/\host"). */
export function isSitePath(value: string): boolean {
  return value.startsWith("/") && !/^\/[/\\]/.test(value) && !UNSAFE_CHARS.test(value);
}

/** A stored URL fit for an href: itself when it is http(s) (or, with `sitePath`, a path on this site); else null. */
export function httpHref(value: unknown, opts: { sitePath?: boolean } = {}): string | null {
  if (typeof value !== "string") return null;
  const v = value.trim();
  return isHttpUrl(v) || (opts.sitePath && isSitePath(v)) ? v : null;
}
