import { chromiumPath, haveChromium, INSTALL_COMMAND } from "./chromium";

/**
 * Global set-up of the Node suite: a machine without Chromium would otherwise skip every browser test and still
 * report green, and a newcomer would believe the shop's pages were tested when they were not.
 */
export default function requireChromium() {
  if (haveChromium || process.env.SKIP_BROWSER_TESTS === "1") return;
  throw new Error(
    `The browser tests need Chromium and there is none at ${chromiumPath}.\n` +
      `Install it with:  ${INSTALL_COMMAND}\n` +
      `(or point CHROMIUM_PATH at one, or set SKIP_BROWSER_TESTS=1 to run everything else and skip the browser tests)`,
  );
}
