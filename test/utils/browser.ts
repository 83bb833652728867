// Headless Chromium (Debian's `chromium` package, installed by .ci/run) driven through
// playwright-core, for the tests of the live page. A fresh profile per launch; the flags keep
// Chromium off the network beyond what the page asks for (this machine refuses other
// connections, and a test must not depend on them).
import { existsSync } from "node:fs";
import { type BrowserContext, chromium } from "playwright-core";
import { tempDatadir } from "./fixtures.ts";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser"];

export function chromiumPath(): string {
  const given = process.env.FLASHNODE_CHROMIUM;
  if (given !== undefined && given !== "") return given;
  const found = CANDIDATES.find((p) => existsSync(p));
  if (found === undefined)
    throw new Error(
      "no Chromium found: apt-get install -y chromium (bash .ci/run installs it), or set FLASHNODE_CHROMIUM",
    );
  return found;
}

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** A browser with a fresh profile directory (removed when the test process exits). */
export function launchBrowser(): Promise<BrowserContext> {
  return chromium.launchPersistentContext(tempDatadir("chromium-profile"), {
    executablePath: chromiumPath(),
    headless: true,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1360, height: 1100 },
  });
}
