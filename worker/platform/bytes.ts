/**
 * Byte searches for HTML kept as UTF-8 bytes (the page cache's script hashes): what they look for is ASCII, so it is
 * found without decoding the page.
 */

/** Where `needle` first occurs in `hay` at or after `from`, or -1 (the native indexOf finds each first byte). */
export function indexOfBytes(hay: Uint8Array, needle: Uint8Array, from = 0): number {
  for (let i = hay.indexOf(needle[0], from); i >= 0 && i <= hay.length - needle.length; i = hay.indexOf(needle[0], i + 1)) {
    let j = 1;
    while (j < needle.length && hay[i + j] === needle[j]) j++;
    if (j === needle.length) return i;
  }
  return -1;
}
