// A follower whose upstream is a WAN away (a proxy adding 60 ms to every request's round trip)
// re-executes a flashblock of ERC-20 transfers and constant-product swaps that touches only
// state it never fetched (senders, tokens, the pair: all written before its base block): what
// the flashblock reads is fetched before it runs, in at most 3 round trips, and the flashblock
// still comes out as the sequencer's.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { keccak256 } from "viem";
import {
  type CountingProxy,
  roundTrips,
  STATE_METHODS,
  startCountingProxy,
} from "../../bench/lib/countingProxy.ts";
import { type FlashblockTap, tapFlashblocks } from "../../bench/lib/flashblockTap.ts";
import { compileLoadContracts, LoadSigner } from "../../bench/lib/followLoad.ts";
import type { RunningNode } from "../../src/node/plan.ts";
import { pollUntil, sendRawBatch, startTestDevNode, startTestFollower } from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

const SENDERS = 6;
const LATENCY_MS = 60;

let sequencer: RunningNode;
let follower: RunningNode;
let proxy: CountingProxy;
let signer: LoadSigner;
let taps: FlashblockTap[] = [];

async function sendAll(raws: readonly string[]): Promise<void> {
  const answers = await sendRawBatch(sequencer.url, raws);
  for (const a of answers) assert.equal(a.error, undefined, a.error?.message);
}

async function mined(raws: readonly string[]): Promise<void> {
  for (const raw of raws)
    await pollUntil(
      () => call(sequencer.url, "eth_getTransactionReceipt", [keccak256(raw as `0x${string}`)]),
      (r) => r !== null,
    );
}

const pendingHashes = async (node: RunningNode) =>
  ((await call(node.dedicatedUrl, "eth_getBlockReceipts", ["pending"])) as
    | { transactionHash: string }[]
    | null) ?? [];

before(async () => {
  // Long blocks: nothing is sealed while the flashblock is measured; evm_mine seals.
  sequencer = await startTestDevNode({
    blockTimeMs: 600_000,
    flashblockIntervalMs: 500,
    accounts: SENDERS,
  });
  signer = new LoadSigner(
    SENDERS,
    compileLoadContracts(),
    Number(await call(sequencer.url, "eth_chainId")),
  );
  const setup = await signer.setup(10n ** 24n, 10n ** 21n);
  await sendAll(setup.slice(0, 3));
  await mined(setup.slice(0, 3));
  await sendAll(setup.slice(3));
  await mined(setup.slice(3));
  // Sealed before the follower starts: all of it is state at its base block, fetched on use.
  await call(sequencer.url, "evm_mine");
  proxy = await startCountingProxy(sequencer.url, { latencyMs: LATENCY_MS });
  follower = await startTestFollower(sequencer, "follow-cold-prefetch", { rpc: proxy.url });
  const head = async (n: RunningNode) => Number(await call(n.url, "eth_blockNumber"));
  await pollUntil(
    async () => [await head(follower), await head(sequencer)],
    ([a, b]) => a === b,
    60_000,
  );
  // A block opened while the follower listens: its flashblocks are the follower's pending.
  taps = [
    await tapFlashblocks(`${sequencer.wsUrl}flashblocks`),
    await tapFlashblocks(`${follower.wsUrl}flashblocks`),
  ];
  await call(sequencer.url, "evm_mine");
  const open = (await head(sequencer)) + 1;
  await pollUntil(
    async () =>
      (await call(follower.url, "eth_getBlockByNumber", ["pending", false])) as {
        number: string;
      },
    (b) => Number(b.number) === open,
    60_000,
  );
});

after(async () => {
  for (const t of taps) t.close();
  await follower?.close();
  await proxy?.close();
  await sequencer?.close();
});

test("a flashblock of transfers and swaps on cold state costs at most 3 round trips", async () => {
  const [seqTap, followerTap] = taps as [FlashblockTap, FlashblockTap];
  const load: string[] = [];
  for (let i = 0; i < SENDERS; i++)
    load.push(
      await signer.transfer(i, 0, 100_000n),
      await signer.swap(i, 0, 200_000n),
      await signer.transfer(i, 1, 100_000n),
      await signer.swap(i, 1, 200_000n),
    );
  const hashes = load.map((raw) => keccak256(raw as `0x${string}`));
  const sentAt = performance.now();
  await sendAll(load);
  const shown = await pollUntil(
    () => pendingHashes(follower),
    (rs) => hashes.every((h) => rs.some((r) => r.transactionHash === h)),
    60_000,
  );
  assert.deepEqual(
    shown,
    await pendingHashes(sequencer),
    "the follower's pending block is the sequencer's",
  );
  assert.deepEqual(
    await call(follower.dedicatedUrl, "eth_getBlockReceipts", ["pending"]),
    await call(sequencer.dedicatedUrl, "eth_getBlockReceipts", ["pending"]),
  );
  // Each flashblock that carried them, from its arrival to the follower's showing it.
  const carried = [...seqTap.arrivals].filter(([, a]) => a.at >= sentAt && a.transactions > 0);
  assert.ok(carried.length > 0, "the sequencer streamed the transactions");
  assert.equal(
    carried.reduce((n, [, a]) => n + a.transactions, 0),
    load.length,
    "every flashblock that carried them was seen",
  );
  const requests = proxy.requests().filter((r) => r.methods.some((m) => STATE_METHODS.has(m)));
  for (const [key, arrival] of carried) {
    const end = followerTap.arrivals.get(key)?.at;
    assert.ok(end !== undefined, `the follower showed flashblock ${key}`);
    const inWork = requests.filter((r) => r.start >= arrival.at && r.start <= end);
    assert.ok(inWork.length > 0, `flashblock ${key} read cold state`);
    const trips = roundTrips(inWork);
    assert.ok(
      trips <= 3,
      `flashblock ${key} (${arrival.transactions} transactions) took ${trips} round trips to the upstream (${inWork.length} requests)`,
    );
  }
});
