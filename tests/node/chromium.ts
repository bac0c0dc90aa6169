import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/**
 * Debian's Chromium, driven by playwright-core (nothing downloads a browser). Every browser test gets it from here.
 * Without it `npm test` fails before any test runs (tests/node/chromium-setup.ts) unless SKIP_BROWSER_TESTS=1 says
 * the browser tests are skipped on purpose.
 */

export const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const haveChromium = existsSync(chromiumPath);
export const INSTALL_COMMAND = "sudo apt-get install -y chromium";
export const SKIP_NOTE = `SKIP_BROWSER_TESTS=1 and no chromium at ${chromiumPath} (install it: ${INSTALL_COMMAND})`;

const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: FLAGS });
}
