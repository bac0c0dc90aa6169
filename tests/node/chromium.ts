import { existsSync } from "node:fs";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions } from "playwright-core";

/**
 * Debian's Chromium, driven by playwright-core (nothing downloads a browser). Every browser test gets it from here.
 * Without it `npm test` fails before any test runs (tests/node/chromium-setup.ts) unless SKIP_BROWSER_TESTS=1 says
 * the browser tests are skipped on purpose.
 */

export const chromiumPath = process.env.CHROMIUM_PATH || "/usr/bin/chromium";
export const haveChromium = existsSync(chromiumPath);
export const INSTALL_COMMAND = "sudo apt-get install -y chromium";
export const SKIP_NOTE = `SKIP_BROWSER_TESTS=1 and no chromium at ${chromiumPath} (install it: ${INSTALL_COMMAND})`;

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, headless: true, args: FLAGS });
}

/**
 * A browser context whose waits give up after 15 s instead of Playwright's 30 s. A test's own limit is 60 s, and
 * `expect.poll` calls its function once more after its time is up: a poll on an element that never appears then
 * fails at the locator it waited for (two waits of 15 s), instead of as an anonymous "Test timed out".
 */
export async function newContext(browser: Browser, options: BrowserContextOptions = {}): Promise<BrowserContext> {
  const context = await browser.newContext(options);
  context.setDefaultTimeout(15_000);
  context.setDefaultNavigationTimeout(15_000);
  return context;
}
