// The follower's prefetch step against a fake upstream (the state at F: the FollowLoad tokens and
// pair set up on a real VM): what it asks for, in how many batches and round trips, and that
// the executor's run after it (a real EVM on the executor's forked state) then waits for nothing.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { hexToBytes } from "@ethereumjs/util";
import { runTx, type VM } from "@ethereumjs/vm";
import {
  followLoadWorkload,
  runAll,
  type Workload,
  workloadBlock,
  workloadVm,
} from "../../test/utils/evmWorkload.ts";
import { FakeUpstream, type Request } from "../../test/utils/fakeUpstreamState.ts";
import { flashblockBlockOf, freshForkVm, freshStore } from "../../test/utils/freshFork.ts";
import { devAccounts } from "../chain/devGenesis.ts";
import { bytesToUnprefixedHex, padLeft } from "../util/hex.ts";
import { DryRun } from "./discovery.ts";
import { Prefetcher, reportingWaits } from "./prefetcher.ts";
import { senderOf } from "./prefetchPlan.ts";

const SENDERS = 4;
const LATENCY_MS = 15;

/** The upstream's state at F: a VM that ran the workload's setup. */
let source: VM;
let work: Workload;
/** The flashblock under test: a transfer and a swap from every sender. */
let flashblock: TypedTransaction[];

before(async () => {
  work = await followLoadWorkload(SENDERS, SENDERS);
  source = await workloadVm(work.spec, "sync");
  await runAll(source, work.setup, 1n);
  flashblock = work.transfers.flatMap((t, i) => [t, work.swaps[i]!]);
});

async function setup() {
  const upstream = new FakeUpstream(source.stateManager, LATENCY_MS);
  const prefetch = new Prefetcher(
    freshStore,
    upstream,
    await DryRun.create(work.spec, freshStore, upstream),
  );
  const vm = await freshForkVm(
    work.spec,
    reportingWaits(upstream, () => prefetch.executorWaits()),
  );
  return { upstream, prefetch, vm, block: flashblockBlockOf(vm) };
}

/** Runs `txs` as the replay does (telling the prefetcher where it is); their gas used. */
async function runReal(vm: VM, prefetch: Prefetcher, txs: readonly TypedTransaction[]) {
  const block = workloadBlock(vm, 1n);
  const gas: bigint[] = [];
  for (const [i, tx] of txs.entries()) {
    prefetch.at(i);
    const r = await runTx(vm, { tx, block, skipHardForkValidation: true });
    assert.equal(r.execResult.exceptionError, undefined, `transaction ${i} ran`);
    gas.push(r.totalGasSpent);
  }
  prefetch.finished();
  return gas;
}

/** What the source (the upstream itself) says the transactions cost. */
async function expectedGas(txs: readonly TypedTransaction[]): Promise<bigint[]> {
  const copy = await workloadVm(work.spec, "sync");
  await runAll(copy, work.setup, 1n);
  return (await runAll(copy, txs, 1n)).map((r) => r.totalGasSpent);
}

/** The block's system calls' state, asked for beside the first batch (needed at its seal). */
const SYSTEM = new Set([
  "000f3df6d732807ef1319fb7b8bb8522d0beac02",
  "0000f90827f1c53a10cb7a02335b175320002935",
  "00000961ef480eb55e80d19ad83579a64c007002",
  "0000bbddc7ce488642fb579f8b00f3a590007251",
  "fffffffffffffffffffffffffffffffffffffffe",
]);

test("a cold flashblock: senders, recipients and the fee recipient first, what it reads in at most 2 round trips, then a run that waits for nothing", async () => {
  const { upstream, prefetch, vm, block } = await setup();
  await prefetch.prepare(flashblock, block, false);
  const [system, named] = upstream.requests as [Request, Request];
  assert.deepEqual(system.accounts, SYSTEM, "the system calls' accounts, asked for first");
  assert.equal(system.slots.size, 3 + 4 + 4, "EIP-4788's two slots, EIP-2935's one, the queues'");
  assert.deepEqual(
    named.accounts,
    new Set(
      [
        ...flashblock.map((tx) => senderOf(tx)),
        ...flashblock.map((tx) => tx.to!.bytes),
        block.coinbase,
      ].map(bytesToUnprefixedHex),
    ),
    "then every account the transactions name, in one batch",
  );
  assert.ok(named.start < system.end, "both on the same round trip");
  assert.ok(upstream.roundTrips() <= 2, `${upstream.roundTrips()} round trips`);
  assert.ok(prefetch.stats.dryRuns <= 2);
  const asked = upstream.requests.length;
  assert.deepEqual(await runReal(vm, prefetch, flashblock), await expectedGas(flashblock));
  assert.equal(prefetch.stats.waits, 0, "the executor waited for nothing");
  assert.equal(upstream.requests.length, asked, "and asked nothing more");
});

test("a warm flashblock: nothing asked, no dry run", async () => {
  const { upstream, prefetch, block } = await setup();
  await prefetch.prepare(flashblock, block, false);
  const asked = upstream.requests.length;
  const dryRuns = prefetch.stats.dryRuns;
  await prefetch.prepare(flashblock, block, false);
  assert.equal(upstream.requests.length, asked);
  assert.equal(prefetch.stats.dryRuns, dryRuns);
  assert.equal(prefetch.stats.cold, 1);
});

test("an access list's accounts and slots are in the first batch", async () => {
  const { upstream, prefetch, block } = await setup();
  const [alice] = devAccounts(1);
  const token = flashblock[0]!.to!.bytes;
  const slots = [padLeft(Uint8Array.of(2), 32), padLeft(Uint8Array.of(9), 32)];
  const tx = createTx(
    {
      type: 2,
      chainId: work.spec.common.chainId(),
      nonce: 50n,
      to: token,
      gasLimit: 100_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
      accessList: [
        {
          address: `0x${bytesToUnprefixedHex(token)}`,
          storageKeys: slots.map((s) => `0x${bytesToUnprefixedHex(s)}`),
        },
      ],
    } as never,
    { common: work.spec.common },
  ).sign(hexToBytes(alice!.privateKey as `0x${string}`));
  await prefetch.prepare([tx], block, false);
  const named = upstream.requests.find((r) => r.accounts.has(bytesToUnprefixedHex(token)))!;
  assert.deepEqual(
    named.slots,
    new Set(slots.map((s) => bytesToUnprefixedHex(token) + bytesToUnprefixedHex(s))),
  );
  for (const s of slots) assert.notEqual(upstream.peekStorage(token, s), undefined);
});

test("a flashblock whose named state is held but reads slots that are not: the executor's first wait runs the rest dry, and the run takes at most 2 round trips", async () => {
  const { upstream, prefetch, vm, block } = await setup();
  // Senders, tokens and pair fetched (a warm follower meeting new balances): nothing to name.
  const accounts = [
    ...flashblock.map((tx) => senderOf(tx)),
    ...flashblock.map((tx) => tx.to!.bytes),
    block.coinbase,
  ];
  await upstream.prefetch(accounts, []);
  await prefetch.prepare([], block, false); // the block's system calls' state, asked for once
  await new Promise((r) => setTimeout(r, LATENCY_MS * 2));
  const from = upstream.requests.length;
  await prefetch.prepare(flashblock, block, false);
  assert.equal(upstream.requests.length, from, "nothing named is missing: nothing asked");
  assert.equal(prefetch.stats.dryRuns, 0);
  assert.deepEqual(await runReal(vm, prefetch, flashblock), await expectedGas(flashblock));
  assert.ok(prefetch.stats.waits > 0, "the executor did wait");
  assert.ok(prefetch.stats.dryRuns >= 1, "its wait started a dry run");
  const trips = upstream.roundTrips(from);
  assert.ok(trips <= 2, `${trips} round trips (${upstream.requests.length - from} requests)`);
});
