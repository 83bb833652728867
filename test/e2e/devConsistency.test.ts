// What `dev` promises about consistency, across its --rpc-workers readers:
// - `pending` never answers an older block than the one being built: a seal and the next block's
//   flashblock 0 reach every reader as one update, and a reader's head moves with its pending
//   view (never ahead of it, whatever the archive already holds);
// - read-your-writes: once evm_mine has answered, any connection sees the mined block.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { type CliNode, startReadersNode } from "../utils/cliNode.ts";
import { tempDatadir } from "../utils/fixtures.ts";
import { stopChild } from "../utils/processes.ts";
import { rpcOn } from "../utils/readers.ts";

const KEY = "dev-consistency-key";

type Receipt = { blockNumber: string };

function startDev(name: string, blockTime: string): Promise<CliNode> {
  return startReadersNode("dev", tempDatadir(name), KEY, [
    "--block-time",
    blockTime,
    "--flashblock-interval",
    "50ms",
  ]);
}

/** Each call on a new connection: the two readers take turns. */
const call = (url: string, method: string, params: unknown[] = []) =>
  rpcOn(`${url}rpc/${KEY}`, undefined, method, params);

const head = async (url: string) => Number(await call(url, "eth_blockNumber"));

let sealing: CliNode | undefined;
let mining: CliNode | undefined;
after(async () => {
  await Promise.all([stopChild(sealing?.child), stopChild(mining?.child)]);
});

let sealingUrl: string;
let miningUrl: string;
before(async () => {
  // Both started at once; whichever did start is stopped even when the other failed.
  const started = await Promise.allSettled([
    startDev("consistency-seals", "500ms"),
    startDev("consistency-mine", "600s"),
  ]);
  [sealing, mining] = started.map((s) => (s.status === "fulfilled" ? s.value : undefined));
  for (const s of started) if (s.status === "rejected") throw s.reason;
  sealingUrl = sealing!.url;
  miningUrl = mining!.url;
});

test("across 20 seals, pending is never the head (head read before and after each call)", async () => {
  const start = await head(sealingUrl);
  let checked = 0;
  let stale = 0;
  let last = start;
  // Until 20 seals have passed under the polling; each answer between two equal heads counts.
  while (last < start + 20) {
    const before = await head(sealingUrl);
    // The OP-stack chain's pending block always holds its L1-info deposit: never empty.
    const receipts = (await call(sealingUrl, "eth_getBlockReceipts", ["pending"])) as Receipt[];
    const afterHead = await head(sealingUrl);
    last = afterHead;
    if (before !== afterHead) continue;
    assert.ok(receipts.length > 0, "the pending block holds its L1-info deposit");
    checked++;
    if (Number(receipts[0]!.blockNumber) !== before + 1) stale++;
  }
  assert.ok(checked >= 20, `only ${checked} answers fell between two equal heads`);
  // A reader that answered past its fence wait says so in the node's log: shown with a failure.
  const fenceWaits = sealing!
    .output()
    .split("\n")
    .filter((l) => l.includes("position fence"));
  assert.equal(
    stale,
    0,
    `${stale} of ${checked} pending answers were not the block after the head; ${fenceWaits.length} fence waits timed out${fenceWaits.length > 0 ? `:\n${fenceWaits.slice(0, 3).join("\n")}` : ""}`,
  );
});

test("40 × evm_mine, each followed by latest on a new connection: never stale", async () => {
  let stale = 0;
  for (let i = 0; i < 40; i++) {
    const before = await head(miningUrl);
    await call(miningUrl, "evm_mine");
    const latest = (await call(miningUrl, "eth_getBlockByNumber", ["latest", false])) as {
      number: string;
    };
    if (Number(latest.number) < before + 1) stale++;
  }
  assert.equal(stale, 0, `${stale} of 40 reads after evm_mine were stale`);
});

test("anvil_setBalance, eth_sendTransaction and evm_revert are seen by the next call on any connection", async () => {
  const account = "0x000000000000000000000000000000000000beef";
  const from = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
  let stale = 0;
  for (let i = 1; i <= 20; i++) {
    const balance = `0x${(1000 + i).toString(16)}`;
    await call(miningUrl, "anvil_setBalance", [account, balance]);
    if ((await call(miningUrl, "eth_getBalance", [account, "pending"])) !== balance) stale++;
    const nonce = Number(await call(miningUrl, "eth_getTransactionCount", [from, "pending"]));
    await call(miningUrl, "eth_sendTransaction", [{ from, to: account, value: "0x1" }]);
    const next = Number(await call(miningUrl, "eth_getTransactionCount", [from, "pending"]));
    if (next !== nonce + 1) stale++;
  }
  const snapshot = await call(miningUrl, "evm_snapshot");
  const before = await head(miningUrl);
  await call(miningUrl, "evm_mine");
  await call(miningUrl, "evm_revert", [snapshot]);
  if ((await head(miningUrl)) !== before) stale++;
  assert.equal(stale, 0, `${stale} reads after a dev write were stale`);
});
