// The dev terminal as a developer sees it, through the CLI: the start-up log lines, then the
// banner (accounts, keys, URLs) last, then nothing while the chain is idle; a transaction's
// lines after that. stdout is a pipe here, so log records are JSON lines and the banner is text.
import assert from "node:assert/strict";
import { type ChildProcessByStdio, spawn } from "node:child_process";
import type { Readable } from "node:stream";
import { after, before, test } from "node:test";
import { parseGwei } from "viem";
import { devSigner, pollUntil, waitForBlock } from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";

const BANNER_START = "\nflashnode dev\n";
const BANNER_END = "Public endpoints refuse eth_getBlockReceipts";

let child: ChildProcessByStdio<null, Readable, Readable>;
let out = "";
let url: string;

before(async () => {
  child = spawn(
    process.execPath,
    [
      BIN,
      "dev",
      ...["--datadir", tempDatadir("terminal"), "--port", "0"],
      ...["--block-time", "200ms", "--flashblock-interval", "50ms"],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  child.stdout.on("data", (c: Buffer) => {
    out += c.toString();
  });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  await pollUntil(
    async () => (exited ? "exited" : out),
    (o) => o === "exited" || o.includes(BANNER_END),
    60_000,
  );
  assert.ok(!exited, `flashnode dev exited before its banner:\n${out}`);
  url = /JSON-RPC \(public\):\s+(\S+)/.exec(out)?.[1] ?? "";
});

after(async () => {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGINT");
  await exited;
});

/** Everything printed after the banner's last line. */
function afterBanner(): string {
  const end = out.indexOf("\n", out.indexOf(BANNER_END));
  return out.slice(end + 1);
}

test("the banner comes after the start-up log lines; an idle chain prints nothing after it", async () => {
  const before = out.slice(0, out.indexOf(BANNER_START));
  assert.match(before, /"msg":"serving JSON-RPC"/, "start-up lines first");
  const from = Number(await call(url, "eth_blockNumber"));
  // Three seals later (whatever the time it takes), nothing was logged for them.
  await waitForBlock(url, from + 3);
  assert.equal(afterBanner().trim(), "", "no line for empty blocks or flashblocks");
});

test("a transfer prints its received, pre-confirmed and sealed lines after the banner", async () => {
  const account = devSigner();
  const raw = await account.signTransaction({
    chainId: Number(await call(url, "eth_chainId")),
    type: "eip1559",
    nonce: 0,
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    to: account.address,
    value: 1n,
  });
  const hash = (await call(url, "eth_sendRawTransaction", [raw])) as string;
  type Line = { msg: string; [field: string]: unknown };
  const printed = () =>
    afterBanner()
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as Line);
  const lines = await pollUntil(
    async () => printed(),
    (ls) => ls.some((l) => l.msg === "sealed"),
  );
  assert.deepEqual(
    lines.map((l) => [l.msg, l.hash]),
    [
      ["transaction received", hash],
      ["transaction pre-confirmed", hash],
      ["sealed", lines.at(-1)?.hash],
    ],
  );
  assert.equal(lines[0]?.nonce, 0);
  assert.equal(lines[0]?.from, account.address.toLowerCase());
  assert.equal(lines[1]?.status, "success");
  assert.equal(lines[1]?.gasUsed, 21000);
  assert.equal(lines[2]?.transactions, 1);
});
