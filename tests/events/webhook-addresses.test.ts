import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hostProblem, isLoopbackHost, parseIpv4, parseIpv6, targetUrlProblem } from "#worker/webhooks/addresses";
import { checkTargetUrl } from "#worker/webhooks/subscriptions";

/**
 * The outgoing webhook target check (worker/webhooks/addresses.ts): IP literals in every form URL parsing
 * accepts, classified against the non-global ranges of IPv4 and IPv6 (with IPv4 carried inside IPv6), and names
 * that are not public DNS names. Hosts go through `new URL` first, as the check does.
 */

const production = { ...env, ENVIRONMENT: "production" } as Env;
const hostOf = (url: string) => new URL(url).hostname;

describe("IP parsing", () => {
  it("reads IPv4 as URL parsing does: decimal, octal, hex, short forms and a trailing dot", () => {
    const cases: [string, string][] = [
      ["127.0.0.1", "127.0.0.1"],
      ["2130706433", "127.0.0.1"],
      ["0x7f000001", "127.0.0.1"],
      ["0177.0.0.1", "127.0.0.1"],
      ["0x7f.1", "127.0.0.1"],
      ["127.1", "127.0.0.1"],
      ["10.1.65535", "10.1.255.255"],
      ["169.254.169.254.", "169.254.169.254"],
      ["0", "0.0.0.0"],
    ];
    for (const [text, dotted] of cases) {
      const n = parseIpv4(text);
      expect(n, text).not.toBeNull();
      expect([n! >>> 24, (n! >>> 16) & 255, (n! >>> 8) & 255, n! & 255].join("."), text).toBe(dotted);
      // URL parsing agrees.
      expect(hostOf(`https://${text}/`), text).toBe(dotted);
    }
    for (const text of ["256.0.0.1", "1.2.3.4.5", "4294967296", "0x1g", "08.0.0.1", "1..2", "example.com", ""])
      expect(parseIpv4(text), text).toBeNull();
  });

  it("reads IPv6 with compression, an IPv4 tail and brackets; refuses zone ids and malformed text", () => {
    expect(parseIpv6("[::1]")).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseIpv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseIpv6("::ffff:127.0.0.1")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
    expect(parseIpv6("2001:db8::8a2e:370:7334")).toEqual([0x2001, 0xdb8, 0, 0, 0, 0x8a2e, 0x370, 0x7334]);
    expect(parseIpv6("1:2:3:4:5:6:7:8")).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(parseIpv6("64:ff9b::10.0.0.1")).toEqual([0x64, 0xff9b, 0, 0, 0, 0, 0x0a00, 1]);
    for (const text of [
      "fe80::1%eth0",
      "1:2:3:4:5:6:7",
      "1::2::3",
      "12345::",
      "::1.2.3",
      "1.2.3.4::",
      "::ffff:1.2.3.256",
      "g::1",
      "1:2:3:4:5:6:7:8:9",
    ]) {
      expect(parseIpv6(text), text).toBeNull();
    }
  });
});

describe("host classification", () => {
  it("refuses every non-global IPv4 range, in any spelling", () => {
    const refused = [
      "0.0.0.0",
      "0.1.2.3",
      "10.0.0.1",
      "10.255.255.255",
      "100.64.0.1",
      "100.127.255.254",
      "127.0.0.1",
      "127.255.0.9",
      "169.254.169.254",
      "172.16.0.1",
      "172.31.255.255",
      "192.0.0.8",
      "192.0.2.10",
      "192.88.99.1",
      "192.168.1.1",
      "198.18.0.1",
      "198.19.255.255",
      "198.51.100.7",
      "203.0.113.9",
      "224.0.0.1",
      "239.255.255.250",
      "240.0.0.1",
      "255.255.255.255",
      // Other spellings URL parsing turns into the above.
      "2130706433",
      "0x7f.1",
      "0177.0.0.1",
      "127.1",
      "3232235777",
      "0xa9fea9fe",
      "169.254.169.254.",
    ];
    for (const host of refused) expect(hostProblem(hostOf(`https://${host}/`)), host).toMatch(/^is /);
  });

  it("accepts global IPv4 addresses, including those next to private ranges", () => {
    for (const host of [
      "1.1.1.1",
      "8.8.8.8",
      "100.63.255.255",
      "100.128.0.0",
      "172.15.255.255",
      "172.32.0.0",
      "192.169.0.1",
      "198.20.0.1",
      "223.255.255.255",
      "11.0.0.1",
      "169.255.0.1",
    ]) {
      expect(hostProblem(hostOf(`https://${host}/`)), host).toBeNull();
    }
  });

  it("refuses non-global IPv6, and private IPv4 carried in mapped, compatible, NAT64 or 6to4 form", () => {
    const refused = [
      "[::]",
      "[::1]",
      "[::ffff:127.0.0.1]",
      "[::ffff:7f00:1]",
      "[::ffff:10.0.0.1]",
      "[::ffff:169.254.169.254]",
      "[::ffff:0:a00:1]",
      "[::127.0.0.1]",
      "[::8.8.8.8]",
      "[64:ff9b::127.0.0.1]",
      "[64:ff9b::a9fe:a9fe]",
      "[64:ff9b:1::1]",
      "[2002:7f00:1::]",
      "[2002:c0a8:101::1]",
      "[100::1]",
      "[2001::1]",
      "[2001:db8::1]",
      "[2001:2::1]",
      "[3fff::1]",
      "[5f00::1]",
      "[fc00::1]",
      "[fd00::1]",
      "[fd12:3456::1]",
      "[fe80::1]",
      "[febf::1]",
      "[fec0::1]",
      "[ff02::1]",
      "[ff05::2]",
      "[::2]",
      "[1::]",
      "[4000::1]",
      "[e000::1]",
    ];
    for (const host of refused) expect(hostProblem(hostOf(`https://${host}/`)), host).toMatch(/^is /);
  });

  it("accepts global IPv6, and public IPv4 in mapped, NAT64 or 6to4 form", () => {
    for (const host of [
      "[2606:4700:4700::1111]",
      "[2a00:1450:4001::200e]",
      "[::ffff:8.8.8.8]",
      "[64:ff9b::8.8.8.8]",
      "[2002:808:808::1]",
      "[2620:4f:8000::1]",
    ]) {
      expect(hostProblem(hostOf(`https://${host}/`)), host).toBeNull();
    }
  });

  it("refuses names that are not public DNS names, with a trailing dot or not", () => {
    const refused = [
      "localhost",
      "localhost.",
      "LOCALHOST",
      "api.localhost",
      "api.localhost.",
      "metadata",
      "intranet",
      "printer.local",
      "metadata.google.internal",
      "metadata.google.internal.",
      "instance-data.ec2.internal",
      "router.home.arpa",
      "1.0.0.127.in-addr.arpa",
      "shop.test",
      "a.example",
      "x.invalid",
      "abc.onion",
      "box.lan",
      "nas.home",
      "git.corp",
      "x.alt",
      "host.localdomain",
      "127.0.0.1.nip.io",
      "10.0.0.1.nip.io",
      "nip.io",
      "app.sslip.io",
      "169-254-169-254.sslip.io",
      "foo.xip.io",
      "x.lvh.me",
      "a.localtest.me",
    ];
    for (const host of refused) expect(hostProblem(hostOf(`https://${host}/`)), host).toMatch(/^is /);
  });

  it("accepts public names, including ones that merely contain a special word", () => {
    for (const host of [
      "hooks.example.com",
      "example.com.",
      "api.stripe.com",
      "local.example.org",
      "internal-tools.dev",
      "localhost.example.net",
      "nip.io.example.com",
      "xn--bcher-kva.de",
    ]) {
      expect(hostProblem(hostOf(`https://${host}/`)), host).toBeNull();
    }
  });

  it("tells the developer's own machine apart for plain http outside production", () => {
    for (const host of ["localhost", "localhost.", "app.localhost", "127.0.0.1", "127.9.9.9", "[::1]", "2130706433"])
      expect(isLoopbackHost(hostOf(`http://${host}/`)), host).toBe(true);
    for (const host of ["example.com", "10.0.0.1", "[::ffff:127.0.0.1]", "[::]", "localhost.example.com"])
      expect(isLoopbackHost(hostOf(`http://${host}/`)), host).toBe(false);
  });
});

describe("target URL check", () => {
  it("in production: https to a public host only, with the reason in the answer", () => {
    expect(checkTargetUrl(production, "https://hooks.example.com/in#frag")).toBe("https://hooks.example.com/in");
    expect(checkTargetUrl(production, "https://[2606:4700:4700::1111]:8443/x")).toBe("https://[2606:4700:4700::1111]:8443/x");
    expect(targetUrlProblem(production, "https://[::ffff:127.0.0.1]/in")).toBe(
      "must be a public address: [::ffff:7f00:1] is the IPv4-mapped form of a loopback address (127.0.0.0/8)",
    );
    expect(targetUrlProblem(production, "https://localhost./in")).toBe(
      "must be a public address: localhost. is a single-label name (not a public DNS name)",
    );
    expect(targetUrlProblem(production, "http://hooks.example.com/in")).toBe("must use https");
    for (const url of [
      "https://[fd00::1]/",
      "https://[fe80::1]/",
      "https://[::]/",
      "https://100.64.0.1/",
      "https://100.100.100.200/",
      "https://127.0.0.1.nip.io/",
      "https://metadata.google.internal/computeMetadata/v1/",
    ]) {
      expect(() => checkTargetUrl(production, url), url).toThrow(/must be a public address/);
    }
  });

  it("outside production: plain http only to the developer's machine", () => {
    expect(targetUrlProblem(env, "http://localhost:8080/in")).toBeNull();
    expect(targetUrlProblem(env, "http://[::1]:8080/in")).toBeNull();
    expect(targetUrlProblem(env, "http://10.0.0.1/in")).toMatch(/^must use https/);
    expect(targetUrlProblem(env, "http://[::ffff:127.0.0.1]/in")).toMatch(/^must use https/);
    expect(targetUrlProblem(env, "ftp://localhost/")).toBe("must be an http or https URL");
    expect(targetUrlProblem(env, "https://u:p@example.com/")).toBe("must not contain credentials (user:password@)");
    expect(targetUrlProblem(env, "nope")).toBe("must be an absolute URL");
  });
});
