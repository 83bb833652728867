// The prefetch step's guesses (discovery.ts' dry run, prefetchPlan.ts' plan) against a fake
// upstream: what a dry run makes up to keep going (placeholders) stays in the dry run, and a
// prefetch that guessed wrong — fetched slots the transaction never reads, ran it dry down a path
// the real run does not take — changes nothing of the executor's result.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { createTx, type TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, hexToBytes } from "@ethereumjs/util";
import { runTx, type VM } from "@ethereumjs/vm";
import { asm } from "../../test/utils/evmAsm.ts";
import {
  followLoadWorkload,
  runAll,
  type Workload,
  workloadBlock,
  workloadVm,
} from "../../test/utils/evmWorkload.ts";
import { FakeUpstream } from "../../test/utils/fakeUpstreamState.ts";
import { flashblockBlockOf, freshForkVm, freshStore } from "../../test/utils/freshFork.ts";
import { devAccounts } from "../chain/devGenesis.ts";
import type { AccountRecord } from "../chain/types.ts";
import type { HeadStore } from "../exec/state/headReads.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToUnprefixedHex, padLeft } from "../util/hex.ts";
import { DryRun, type DryRunContext, dryRunReads, Noted, PLACEHOLDER_WORD } from "./discovery.ts";
import { PendingWrites } from "./pendingWrites.ts";
import { Prefetcher, reportingWaits } from "./prefetcher.ts";
import { heldState, missingReads, ReadSet } from "./prefetchPlan.ts";

const SENDERS = 3;
const LATENCY_MS = 2;
const word = (n: number) => padLeft(Uint8Array.of(n), 32);

let work: Workload;
/** The upstream's state at F: the workload's tokens and pair, and BRANCHY. */
let source: VM;
let flashblock: TypedTransaction[];

/**
 * A contract that reads slot 0 (v), then slot v, and stores that at slot 0x20 — or reverts when v
 * is not 5. At F its slot 0 holds 5 and slot 5 holds 42: a dry run reading slot 0 as a placeholder
 * reads the slot the placeholder names (a wrong guess, fetched) and reverts where the real run
 * does not.
 */
const BRANCHY = hexToBytes("0x00000000000000000000000000000000000b0a7c");
const BRANCHY_CODE = asm([
  "0x00",
  "SLOAD",
  "DUP1",
  "SLOAD",
  "SWAP1",
  "0x05",
  "EQ",
  "@ok",
  "JUMPI",
  "0x00",
  "DUP1",
  "REVERT",
  "ok:",
  "JUMPDEST",
  "0x20",
  "SSTORE",
  "STOP",
]);

before(async () => {
  work = await followLoadWorkload(SENDERS, SENDERS);
  source = await workloadVm(work.spec, "sync");
  await runAll(source, work.setup, 1n);
  const branchy = new Address(BRANCHY);
  await source.stateManager.putAccount(branchy, new Account(1n, 0n));
  await source.stateManager.putCode(branchy, hexToBytes(`0x${BRANCHY_CODE}`));
  await source.stateManager.putStorage(branchy, word(0), Uint8Array.of(5));
  await source.stateManager.putStorage(branchy, word(5), Uint8Array.of(42));
  flashblock = work.transfers.flatMap((t, i) => [t, work.swaps[i]!]);
});

/** What a run of `txs` leaves that a caller can see: each receipt's gas and error, and state. */
async function runAndLook(vm: VM, txs: readonly TypedTransaction[], prefetch?: Prefetcher) {
  const block = workloadBlock(vm, 1n);
  const receipts: string[] = [];
  for (const [i, tx] of txs.entries()) {
    prefetch?.at(i);
    const r = await runTx(vm, { tx, block, skipHardForkValidation: true });
    receipts.push(`${r.totalGasSpent} ${r.execResult.exceptionError?.error ?? "ok"}`);
  }
  prefetch?.finished();
  const accounts: string[] = [];
  for (const tx of txs)
    for (const a of [tx.getSenderAddress(), tx.to!]) {
      const account = await vm.stateManager.getAccount(a);
      accounts.push(`${a} ${account?.nonce} ${account?.balance}`);
    }
  const stored = await vm.stateManager.getStorage(new Address(BRANCHY), word(0x20));
  return { receipts, accounts, stored: bytesToUnprefixedHex(stored) };
}

function callBranchy(nonce: bigint): TypedTransaction {
  const [alice] = devAccounts(1);
  return createTx(
    {
      type: 2,
      chainId: work.spec.common.chainId(),
      nonce,
      to: BRANCHY,
      gasLimit: 100_000n,
      maxFeePerGas: 10n ** 11n,
      maxPriorityFeePerGas: 1n,
    },
    { common: work.spec.common },
  ).sign(hexToBytes(alice!.privateKey as `0x${string}`));
}

/** A key of a ReadSet's entries, to compare two sets. */
const keysOf = (r: ReadSet) => [...r.accounts.keys(), ...r.slots.keys()].sort();

test("a dry run's placeholders stay in it: a second run misses the same reads, nothing is asked, the pending writes are untouched", async () => {
  const upstream = new FakeUpstream(source.stateManager, LATENCY_MS);
  const dryRun = await DryRun.create(work.spec, freshStore, upstream);
  const block = flashblockBlockOf(source);
  const token = flashblock[0]!.to!.bytes;
  const pending = new PendingWrites();
  const written: AccountRecord = { nonce: 3n, balance: 77n, codeHash: undefined };
  const coinbase = block.coinbase;
  pending.add({
    accounts: [[coinbase, written]],
    storage: [[token, word(1), Uint8Array.of(9)]],
    wiped: [],
    code: [],
  });
  const first = await dryRun.run(flashblock, block, pending);
  assert.ok(first.misses.size > 0, "a cold flashblock reads what is not fetched");
  assert.deepEqual(first.missed, [...flashblock.keys()], "every transaction read a placeholder");
  assert.ok(!first.misses.hasAccount(coinbase), "the pending block's account is not asked for");
  assert.ok(!first.misses.hasSlot(token, word(1)), "nor its slot");
  const second = await dryRun.run(flashblock, block, pending);
  assert.deepEqual(keysOf(second.misses), keysOf(first.misses), "the second run missed as much");
  assert.deepEqual(second.missed, first.missed);
  assert.equal(upstream.requests.length, 0, "a dry run asks the upstream nothing itself");
  const fetched = upstream.fetched();
  assert.equal(fetched.accounts.size + fetched.slots.size, 0, "nor fills its cache");
  assert.deepEqual(pending.account(coinbase), written, "the pending writes are as they were");
  assert.deepEqual(pending.storage(token, word(1)), Uint8Array.of(9));
  assert.equal(pending.storage(token, word(2)), undefined);
});

test("a prefetch that guessed wrong (a placeholder's slot fetched, a revert that will not happen) changes nothing of the result: the same as without a prefetch", async () => {
  const [alice] = devAccounts(1);
  const from = new Address(hexToBytes(alice!.address as `0x${string}`));
  const sent = flashblock.filter((tx) => tx.getSenderAddress().equals(from)).length;
  const nonce = (await source.stateManager.getAccount(from))!.nonce + BigInt(sent);
  const txs = [...flashblock, callBranchy(nonce)];
  const block = flashblockBlockOf(source);

  const plain = await runAndLook(
    await freshForkVm(work.spec, new FakeUpstream(source.stateManager, LATENCY_MS)),
    txs,
  );
  assert.equal(plain.stored, "2a", "BRANCHY stored slot 5's 42 (the real path)");

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
  await prefetch.prepare(txs, block, false);
  assert.notEqual(
    upstream.peekStorage(BRANCHY, PLACEHOLDER_WORD),
    undefined,
    "the dry run read the slot its placeholder named, and it was fetched",
  );
  assert.deepEqual(await runAndLook(vm, txs, prefetch), plain);
});

test("what is held is not asked for: the pending block's writes, the archive's, what was fetched; a slot of an account without code at F never", async () => {
  const upstream = new FakeUpstream(source.stateManager, LATENCY_MS);
  const [alice, bob] = devAccounts(2).map((a) => hexToBytes(a.address as `0x${string}`));
  const token = flashblock[0]!.to!.bytes;
  const archived = hexToBytes("0x00000000000000000000000000000000000a0c01");
  await upstream.prefetch([alice!, token], [[token, word(4)]]);
  const pending = new PendingWrites();
  pending.add({ accounts: [], storage: [[token, word(6), Uint8Array.of(1)]], wiped: [], code: [] });
  const store = {
    currentAccount: () => undefined,
    accountKnown: (a: Uint8Array) => bytesToUnprefixedHex(a) === bytesToUnprefixedHex(archived),
    slotKnown: (a: Uint8Array, s: Uint8Array) =>
      bytesToUnprefixedHex(a) === bytesToUnprefixedHex(token) &&
      bytesToUnprefixedHex(s) === bytesToUnprefixedHex(word(7)),
  };
  const reads = new ReadSet();
  for (const a of [alice!, bob!, token, archived]) reads.account(a);
  for (const n of [4, 5, 6, 7]) reads.slot(token, word(n));
  reads.slot(alice!, word(1));
  reads.slot(bob!, word(1));
  const missing = missingReads(reads, heldState(store, upstream, pending));
  assert.deepEqual(
    keysOf(missing),
    [
      bytesToUnprefixedHex(bob!),
      bytesToUnprefixedHex(token) + bytesToUnprefixedHex(word(5)),
      bytesToUnprefixedHex(bob!) + bytesToUnprefixedHex(word(1)),
    ].sort(),
  );
});

test("a dry run reads a contract's code once: the same array at every later read, across transactions and runs", async () => {
  const code = Uint8Array.of(0x60, 0x01, 0x60, 0x00, 0x55, 0x00);
  const hash = keccak256(code);
  let reads = 0;
  // Only what a code read uses of the archive: each read a fresh copy, as an LMDB read is.
  const store = {
    code: (h: Uint8Array) => {
      reads++;
      return bytesToUnprefixedHex(h) === bytesToUnprefixedHex(hash)
        ? new Uint8Array(code)
        : undefined;
    },
  } as unknown as HeadStore;
  const upstream = new FakeUpstream(source.stateManager, LATENCY_MS);
  const ctx: DryRunContext = {
    pending: undefined,
    senders: new Set(),
    misses: new Noted(undefined),
  };
  const reads1 = dryRunReads(store, upstream, ctx);
  const address = BRANCHY;
  const first = await reads1.code(hash, address);
  const again = await reads1.code(hash, address);
  assert.deepEqual(first, code);
  assert.equal(again, first, "the same array: the interpreter's jump analysis is kept by array");
  assert.equal(reads, 1, "read from the archive once");
});
