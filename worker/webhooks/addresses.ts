import { config } from "#worker/platform/config";

/**
 * Whether a URL's host is a public place on the internet, for the outgoing webhook target check. IP literals are
 * parsed (IPv4 in every form URL parsing accepts, IPv6 with its IPv4-carrying forms) and refused in any range that
 * is not globally reachable (the IANA special-purpose registries, multicast, reserved space); names must be public
 * DNS names: not a single label, not under a special-use or private top-level domain, not a wildcard-DNS service
 * that maps names to any IP. A trailing dot is dropped first. Resolution is not checked here: a public name that
 * resolves to a private address is the platform's concern (a Worker's fetch does not reach private networks).
 */

/** An IPv4 range: base address (32 bits) and prefix length, with what the merchant is told. */
type V4Range = [base: number, bits: number, what: string];

const v4 = (a: number, b: number, c: number, d: number) => ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;

/** IPv4 ranges that are not global unicast (IANA IPv4 Special-Purpose Address Registry, multicast, reserved). */
const V4_REFUSED: V4Range[] = [
  [v4(0, 0, 0, 0), 8, 'a "this network" address (0.0.0.0/8)'],
  [v4(10, 0, 0, 0), 8, "a private address (10.0.0.0/8)"],
  [v4(100, 64, 0, 0), 10, "a shared carrier-grade NAT address (100.64.0.0/10)"],
  [v4(127, 0, 0, 0), 8, "a loopback address (127.0.0.0/8)"],
  [v4(169, 254, 0, 0), 16, "a link-local address (169.254.0.0/16)"],
  [v4(172, 16, 0, 0), 12, "a private address (172.16.0.0/12)"],
  [v4(192, 0, 0, 0), 24, "an IETF protocol assignment (192.0.0.0/24)"],
  [v4(192, 0, 2, 0), 24, "a documentation address (192.0.2.0/24)"],
  [v4(192, 88, 99, 0), 24, "a 6to4 relay anycast address (192.88.99.0/24)"],
  [v4(192, 168, 0, 0), 16, "a private address (192.168.0.0/16)"],
  [v4(198, 18, 0, 0), 15, "a benchmarking address (198.18.0.0/15)"],
  [v4(198, 51, 100, 0), 24, "a documentation address (198.51.100.0/24)"],
  [v4(203, 0, 113, 0), 24, "a documentation address (203.0.113.0/24)"],
  [v4(224, 0, 0, 0), 4, "a multicast address (224.0.0.0/4)"],
  [v4(240, 0, 0, 0), 4, "a reserved address (240.0.0.0/4, broadcast included)"],
];

/** Why an IPv4 address (32 bits) is not global, or null when it is. */
export function ipv4Problem(address: number): string | null {
  for (const [base, bits, what] of V4_REFUSED) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if ((address & mask) >>> 0 === base) return what;
  }
  return null;
}

/**
 * An IPv4 address as URL parsing reads a host (WHATWG URL's IPv4 parser): one to four dot-separated numbers, each
 * decimal, octal (leading 0) or hex (0x), the last filling the remaining bytes; one trailing dot allowed. Null when
 * the text is not an IPv4 address.
 */
export function parseIpv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    let digits = part;
    let radix = 10;
    if (/^0x/i.test(digits)) {
      digits = digits.slice(2);
      radix = 16;
    } else if (digits.length > 1 && digits.startsWith("0")) {
      digits = digits.slice(1);
      radix = 8;
    }
    const pattern = radix === 16 ? /^[0-9a-f]*$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
    if (part === "" || !pattern.test(digits)) return null;
    const n = digits === "" ? 0 : parseInt(digits, radix);
    if (!Number.isSafeInteger(n)) return null;
    numbers.push(n);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255) || last >= 256 ** (4 - numbers.length)) return null;
  let address = last;
  numbers.forEach((n, i) => (address += n * 256 ** (3 - i)));
  return address >>> 0;
}

/** An IPv6 address (brackets optional) as its eight 16-bit words, or null when it is not one. Zone ids are refused. */
export function parseIpv6(text: string): number[] | null {
  const s = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text;
  if (!/^[0-9a-f:.]+$/i.test(s) || s.length > 45) return null;
  const halves = s.split("::");
  if (halves.length > 2) return null;
  // Each half as words; an IPv4 tail (::ffff:127.0.0.1) is two words, and only at the very end.
  const wordsOf = (half: string, last: boolean): number[] | null => {
    if (half === "") return [];
    const parts = half.split(":");
    const out: number[] = [];
    for (const [i, part] of parts.entries()) {
      if (part.includes(".")) {
        if (!last || i !== parts.length - 1 || !/^\d{1,3}(\.\d{1,3}){3}$/.test(part)) return null;
        const b = part.split(".").map(Number);
        if (b.some((n) => n > 255)) return null;
        out.push((b[0] << 8) | b[1], (b[2] << 8) | b[3]);
      } else if (/^[0-9a-f]{1,4}$/i.test(part)) {
        out.push(parseInt(part, 16));
      } else {
        return null;
      }
    }
    return out;
  };
  const head = wordsOf(halves[0], halves.length === 1);
  const rest = halves.length === 2 ? wordsOf(halves[1], true) : [];
  if (!head || !rest) return null;
  const given = head.length + rest.length;
  if (halves.length === 2 ? given > 7 : given !== 8) return null;
  return [...head, ...Array<number>(8 - given).fill(0), ...rest];
}

/** Whether the first `bits` bits of `words` equal those of `prefix` (both eight 16-bit words). */
function inPrefix(words: number[], prefix: number[], bits: number): boolean {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if ((words[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
}

const w = (text: string) => parseIpv6(text)!;
const embedded = (hi: number, lo: number) => ((hi << 16) | lo) >>> 0;

/** Why an IPv6 address (eight words) is not global, or null when it is; IPv4 carried inside is judged as IPv4. */
export function ipv6Problem(words: number[]): string | null {
  const carried = (address: number, form: string) => {
    const problem = ipv4Problem(address);
    return problem ? `${form} of ${problem}` : null;
  };
  if (inPrefix(words, w("::ffff:0:0"), 96)) return carried(embedded(words[6], words[7]), "the IPv4-mapped form");
  if (inPrefix(words, w("::ffff:0:0:0"), 96))
    return carried(embedded(words[6], words[7]), "the IPv4-translated form") ?? "an IPv4-translated address (::ffff:0:0:0/96)";
  if (inPrefix(words, w("::"), 128)) return "the unspecified address (::)";
  if (inPrefix(words, w("::1"), 128)) return "a loopback address (::1)";
  if (inPrefix(words, w("::"), 96))
    return carried(embedded(words[6], words[7]), "the IPv4-compatible form") ?? "a deprecated IPv4-compatible address (::/96)";
  if (inPrefix(words, w("64:ff9b::"), 96)) return carried(embedded(words[6], words[7]), "the NAT64 form");
  if (inPrefix(words, w("64:ff9b:1::"), 48)) return "a local-use NAT64 address (64:ff9b:1::/48)";
  if (inPrefix(words, w("100::"), 63)) return "a discard-only or dummy address (100::/63)";
  if (inPrefix(words, w("2001:db8::"), 32)) return "a documentation address (2001:db8::/32)";
  if (inPrefix(words, w("2001::"), 23)) return "an IETF protocol assignment (2001::/23, Teredo included)";
  if (inPrefix(words, w("2002::"), 16)) return carried(embedded(words[1], words[2]), "the 6to4 form");
  if (inPrefix(words, w("3fff::"), 20)) return "a documentation address (3fff::/20)";
  if (inPrefix(words, w("5f00::"), 16)) return "a segment-routing address (5f00::/16)";
  if (inPrefix(words, w("fc00::"), 7)) return "a unique local address (fc00::/7)";
  if (inPrefix(words, w("fe80::"), 10)) return "a link-local address (fe80::/10)";
  if (inPrefix(words, w("fec0::"), 10)) return "a site-local address (fec0::/10)";
  if (inPrefix(words, w("ff00::"), 8)) return "a multicast address (ff00::/8)";
  // Only 2000::/3 is allocated for global unicast; the rest of the space is reserved.
  if (!inPrefix(words, w("2000::"), 3)) return "a reserved address (outside 2000::/3)";
  return null;
}

/** Top-level domains that never name a public host (special-use names, and private ones in wide use). */
const PRIVATE_TLDS = new Set([
  "localhost",
  "local",
  "internal",
  "test",
  "example",
  "invalid",
  "onion",
  "alt",
  "arpa",
  "lan",
  "home",
  "corp",
  "intranet",
  "private",
  "localdomain",
]);

/** Wildcard-DNS services: every name under them resolves to whatever IP it spells (or to 127.0.0.1). */
const WILDCARD_DNS = ["nip.io", "sslip.io", "xip.io", "xip.name", "traefik.me", "localtest.me", "lvh.me", "vcap.me", "lacolhost.com"];

/** A host name without its trailing dots, lower-cased. */
export const normaliseHostName = (host: string) => host.toLowerCase().replace(/\.+$/, "");

/**
 * Why a URL's host (as `URL.hostname` gives it) is not a public internet host, or null when it is: an IP literal
 * in a non-global range, or a name that is not a public DNS name.
 */
export function hostProblem(hostname: string): string | null {
  const raw = hostname.toLowerCase();
  if (raw.startsWith("[") || raw.includes(":")) {
    const words = parseIpv6(raw);
    const problem = words ? ipv6Problem(words) : "not a valid IPv6 address";
    return problem && `is ${problem}`;
  }
  const name = normaliseHostName(raw);
  if (name === "") return "is empty";
  const address = parseIpv4(name);
  if (address !== null) {
    const problem = ipv4Problem(address);
    return problem && `is ${problem}`;
  }
  const labels = name.split(".");
  if (labels.some((l) => l === "")) return "has an empty label";
  if (labels.length === 1) return "is a single-label name (not a public DNS name)";
  if (PRIVATE_TLDS.has(labels[labels.length - 1]) || name.endsWith(".home.arpa"))
    return `is under .${labels[labels.length - 1]}, which is not public DNS`;
  const wildcard = WILDCARD_DNS.find((d) => name === d || name.endsWith(`.${d}`));
  if (wildcard) return `is under ${wildcard}, a wildcard-DNS service that maps names to any IP address`;
  // A last label of digits only is an IPv4 address to URL parsing, never a top-level domain.
  if (/^(0x[0-9a-f]*|\d+)$/i.test(labels[labels.length - 1])) return "is not a valid IPv4 address";
  return null;
}

/** Whether the host is the developer's own machine: localhost (or a name under it), 127.0.0.0/8 or ::1. */
export function isLoopbackHost(hostname: string): boolean {
  const raw = hostname.toLowerCase();
  if (raw.startsWith("[") || raw.includes(":")) {
    const words = parseIpv6(raw);
    return !!words && inPrefix(words, w("::1"), 128);
  }
  const name = normaliseHostName(raw);
  if (name === "localhost" || name.endsWith(".localhost")) return true;
  const address = parseIpv4(name);
  return address !== null && address >>> 24 === 127;
}

/**
 * Why a webhook target URL is refused, or null: http(s) only, no credentials; in production https only, to a public
 * internet host (hostProblem); elsewhere plain http only to the developer's own machine.
 */
export function targetUrlProblem(env: Env, raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "must be an absolute URL";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must be an http or https URL";
  if (url.username || url.password) return "must not contain credentials (user:password@)";
  if (config(env).production) {
    if (url.protocol !== "https:") return "must use https";
    const problem = hostProblem(url.hostname);
    return problem && `must be a public address: ${url.hostname} ${problem}`;
  }
  if (url.protocol === "http:" && !isLoopbackHost(url.hostname))
    return "must use https (plain http is allowed only to localhost, 127.0.0.1 or [::1])";
  return null;
}
