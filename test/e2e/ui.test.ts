// The live page (GET /ui) in a real browser, headless Chromium, against `flashnode dev`: it loads
// and goes live over the WebSocket; a transaction sent through viem shows up pre-confirmed (the
// pending list, the node's latency figure on the chart, the lookup with its times), then in a
// sealed block; a node restart shows the disconnected state, and the page recovers on its own.
// Screenshots go to a temp dir (printed as diagnostics). On `serve`, whose archive does not change
// (its WebSocket notifies nothing), the page polls.
import assert from "node:assert/strict";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import type { BrowserContext, Page } from "playwright-core";
import { createWalletClient, defineChain, http, parseEther } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { launchBrowser } from "../utils/browser.ts";
import { startTestDevNode } from "../utils/devChain.ts";
import { importFixtureChain, rpc, tempDatadir } from "../utils/fixtures.ts";
import { startArchiveServer } from "../utils/nodes.ts";
import { silentLogger, testFrontendOptions } from "../utils/options.ts";

/** Generous: a loaded 2-core machine runs the node, the browser and the test together. */
const WAIT = { timeout: 30_000 };

async function sendThroughViem(node: DevNode, value: bigint): Promise<`0x${string}`> {
  const chain = defineChain({
    id: Number(node.chainId),
    name: "flashnode",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  });
  const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
  const wallet = createWalletClient({ chain, account, transport: http(node.url) });
  return wallet.sendTransaction({ to: node.accounts[1]!.address as `0x${string}`, value });
}

/** What page-side functions use of the DOM (these tests are typed without its library). */
type PageDocument = {
  querySelector(selector: string): {
    getAttribute(name: string): string | null;
    textContent: string | null;
  } | null;
};

/** Runs in the page (functions, not strings: the page's CSP forbids eval). */
const chartHas = ([id, points]: [string, number]) =>
  Number(
    (globalThis as unknown as { document: PageDocument }).document
      .querySelector(`#${id}`)
      ?.getAttribute("data-points"),
  ) >= points;
const latencyShown = (hash: string) =>
  /ms$/.test(
    (globalThis as unknown as { document: PageDocument }).document.querySelector(
      `#pending-txs tr[data-tx="${hash}"] td:last-child`,
    )?.textContent ?? "",
  );

async function shot(page: Page, dir: string, name: string, t: { diagnostic(m: string): void }) {
  const path = join(dir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  t.diagnostic(`screenshot: ${path}`);
}

test("the live page follows a dev node: pre-confirmation, seal, restart", async (t) => {
  const datadir = tempDatadir("ui");
  // Kept after the run (not a tempDatadir): the screenshots are there to be looked at.
  const shots = mkdtempSync(join(tmpdir(), "flashnode-ui-screenshots-"));
  // Blocks only on evm_mine: a transaction stays pre-confirmed until the test seals it, so its
  // pending state can be seen however slow the machine; flashblocks still come every 200 ms.
  const options = { datadir, blockTimeMs: 3_600_000 };
  let node = await startTestDevNode(options);
  const port = Number(new URL(node.url).port);
  // Inside the try: a browser that cannot start must not leave the node running.
  let browser: BrowserContext | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
    page.on("console", (m) => {
      if (m.type() === "error" && !/WebSocket|ERR_CONNECTION_REFUSED|Failed to load/.test(m.text()))
        problems.push(`console: ${m.text()}`);
    });

    const response = await page.goto(`${node.url}ui`);
    assert.equal(response?.status(), 200);
    await page.waitForSelector('body[data-state="live"]', WAIT);
    await page.waitForSelector("#flashblocks li.fb", WAIT);
    assert.equal(await page.textContent("#chain-id"), String(node.chainId));

    // A transaction through viem: pre-confirmed in the pending list, with the node's latency.
    const hash = await sendThroughViem(node, parseEther("1.25"));
    const row = `#pending-txs tr[data-tx="${hash}"]`;
    await page.waitForSelector(row, WAIT);
    await page.waitForFunction(chartHas, ["latency-chart", 1] as [string, number], WAIT);
    const latencyCell = await page.textContent(`${row} td:last-child`);
    assert.match(latencyCell ?? "", /\d+(\.\d)? ms/, "the node's send → pre-confirmed figure");
    assert.ok((await page.locator("#latency-chart circle.dot").count()) >= 1, "a dot drawn");
    // Looked up by hash: pre-confirmed, not sealed yet.
    await page.click(`${row} a.tx`);
    await page.waitForSelector(
      '#lookup-result dl[data-preconfirmed="true"][data-sealed="false"]',
      WAIT,
    );
    const lookup = await page.textContent("#lookup-result");
    assert.match(
      lookup ?? "",
      /pre-confirmed\d\d:\d\d:\d\d\.\d{3} \([\d.]+ ms after it was sent\)/,
    );
    assert.match(lookup ?? "", /not yet: pre-confirmed/);
    await shot(page, shots, "1-preconfirmed", t);

    // Sealed: the block holds it, the lookup says when.
    const mined = (await rpc(node.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "evm_mine",
      params: [],
    })) as {
      result?: unknown;
    };
    assert.equal(mined.result, "0x0");
    await page.waitForSelector(`#block-list li[data-block] a[data-tx="${hash}"]`, WAIT);
    await page.waitForSelector('#lookup-result dl[data-sealed="true"]', WAIT);
    assert.match(
      (await page.textContent("#lookup-result")) ?? "",
      /sealed\d\d:\d\d:\d\d\.\d{3} \(/,
    );
    assert.equal(await page.locator(row).count(), 0, "no longer in the pending list");
    await page.waitForFunction(chartHas, ["interval-chart", 2] as [string, number], WAIT);
    await shot(page, shots, "2-sealed", t);

    // The node goes away: the page says so.
    await node.close();
    await page.waitForSelector('body[data-state="disconnected"]', WAIT);
    assert.equal(await page.isVisible("#banner"), true);
    assert.match((await page.textContent("#banner")) ?? "", /Disconnected from the node/);
    await shot(page, shots, "3-disconnected", t);

    // Back on the same port and datadir: live again, following new transactions.
    node = await startTestDevNode({ ...options, frontend: { ...testFrontendOptions(), port } });
    await page.waitForSelector('body[data-state="live"]', WAIT);
    assert.equal(await page.isVisible("#banner"), false);
    const second = await sendThroughViem(node, parseEther("0.5"));
    // Its latency, from the node's figures after the restart.
    await page.waitForFunction(latencyShown, second, WAIT);
    await shot(page, shots, "4-recovered", t);
    assert.deepEqual(problems, []);
  } finally {
    await browser?.close();
    await node.close();
  }
});

test("on `flashnode serve` (nothing to notify) the page polls and shows the archive", async () => {
  const server = await startArchiveServer({
    datadir: importFixtureChain("ui-serve"),
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
  let browser: BrowserContext | undefined;
  try {
    browser = await launchBrowser();
    const page = await browser.newPage();
    await page.goto(`${server.url}ui`);
    await page.waitForSelector('body[data-state="polling"]', WAIT);
    const head = (await rpc(server.url, {
      jsonrpc: "2.0",
      id: 1,
      method: "eth_blockNumber",
      params: [],
    })) as { result: string };
    const number = Number(BigInt(head.result));
    await page.waitForSelector(`#block-list li[data-block="${number}"]`, WAIT);
    assert.equal(await page.textContent("#head"), `#${number}`);
    // Nothing live to show: the flashblock sections are hidden, and the banner says why.
    await page.waitForSelector("#building", { state: "hidden", ...WAIT });
    assert.match((await page.textContent("#banner")) ?? "", /an archive that does not change/);
  } finally {
    await browser?.close();
    await server.close();
  }
});
