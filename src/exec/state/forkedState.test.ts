// The executor's state on a forked chain, over an upstream given in the test (a fake of the layer
// below) and an archive in memory: what the chain never wrote is the upstream's, what it wrote
// (and did not revert) is its own, in the block, once sealed, and once read back from the archive
// after the head moved (a restart, a reorg).
import assert from "node:assert/strict";
import { test } from "node:test";
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { MemoryHead } from "../../../test/utils/memoryHead.ts";
import type { AccountRecord } from "../../chain/types.ts";
import type { UpstreamState } from "../../services/upstreamState.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToUnprefixedHex } from "../../util/hex.ts";
import { ExecutionState } from "./executionState.ts";

const CODE = Uint8Array.of(0x60, 0x00, 0x54);
const CONTRACT = new Address(new Uint8Array(20).fill(0xcc));
const EOA = new Address(new Uint8Array(20).fill(0xee));
const slot = (n: number) => {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
};

function upstream(reads: string[]): UpstreamState {
  const accounts = new Map<string, AccountRecord>([
    [bytesToUnprefixedHex(CONTRACT.bytes), { nonce: 1n, balance: 5n, codeHash: keccak256(CODE) }],
    [bytesToUnprefixedHex(EOA.bytes), { nonce: 7n, balance: 100n, codeHash: undefined }],
  ]);
  return {
    async account(a) {
      reads.push(`account ${bytesToUnprefixedHex(a)}`);
      return accounts.get(bytesToUnprefixedHex(a));
    },
    async storage(_a, s) {
      reads.push(`slot ${s[31]}`);
      return Uint8Array.of(0x40 + (s[31] ?? 0));
    },
    async code() {
      return CODE;
    },
    codeByHash: () => undefined,
    peekAccount: () => undefined,
    peekStorage: () => undefined,
    prefetch: async () => {},
  };
}

/** A forked chain's state at its base block F (block 0 here), with nothing written yet. */
function forked(reads: string[], up: UpstreamState = upstream(reads)) {
  const archive = new MemoryHead();
  // F's own trie holds nothing yet.
  archive.commit(0, KECCAK256_RLP);
  const state = new ExecutionState(archive.headReads(up), archive.trie(), keccak256);
  state.moveToHead();
  return { archive, state };
}

/**
 * Block `number` sealed: the archive takes the accounts and slots given (what the block's write
 * would carry) and its trie nodes; the state moves onto it.
 */
async function seal(
  f: ReturnType<typeof forked>,
  number: number,
  writes: { accounts?: [Address, AccountRecord | undefined][]; slots?: [Address, Uint8Array][] },
) {
  const root = await f.state.getStateRoot();
  for (const [a, record] of writes.accounts ?? []) f.archive.writeAccount(a.bytes, record);
  for (const [a, s] of writes.slots ?? [])
    f.archive.writeSlot(a.bytes, s, await f.state.getStorage(a, s));
  f.state.sealedAs(f.archive.commit(number, root));
  f.state.moveToHead();
}

/** The head moved elsewhere: whatever was kept in memory is read from the archive again. */
function reorged(f: ReturnType<typeof forked>) {
  const head = f.archive.head!;
  f.archive.head = { number: head.number, hash: Uint8Array.of(0xff, ...head.hash.subarray(1)) };
  f.state.moveToHead();
}

test("unwritten state is the upstream's; written state is the chain's, sealed and read back", async () => {
  const reads: string[] = [];
  const f = forked(reads);
  const sm = f.state;
  assert.equal((await sm.getAccount(EOA))?.nonce, 7n);
  assert.deepEqual(await sm.getStorage(CONTRACT, slot(1)), Uint8Array.of(0x41));
  assert.deepEqual(await sm.getCode(CONTRACT), CODE);
  // A block writes slot 1 of the contract (nothing else of it) and zeroes slot 2.
  await sm.checkpoint();
  await sm.putStorage(CONTRACT, slot(1), Uint8Array.of(0x99));
  await sm.putStorage(CONTRACT, slot(2), new Uint8Array(0));
  await sm.commit();
  await seal(f, 1, {
    slots: [
      [CONTRACT, slot(1)],
      [CONTRACT, slot(2)],
    ],
  });
  for (const when of ["sealed", "read back"]) {
    assert.deepEqual(
      await sm.getStorage(CONTRACT, slot(1)),
      Uint8Array.of(0x99),
      `${when}: written`,
    );
    assert.deepEqual(await sm.getStorage(CONTRACT, slot(2)), new Uint8Array(0), `${when}: zeroed`);
    assert.deepEqual(
      await sm.getStorage(CONTRACT, slot(3)),
      Uint8Array.of(0x43),
      `${when}: untouched`,
    );
    assert.deepEqual(await sm.getCode(CONTRACT), CODE, `${when}: the upstream's code`);
    assert.equal((await sm.getAccount(CONTRACT))?.balance, 5n);
    reorged(f);
  }
});

test("a reverted write is forgotten: the upstream's value shows again", async () => {
  const reads: string[] = [];
  const { state: sm } = forked(reads);
  await sm.checkpoint();
  await sm.checkpoint();
  await sm.putStorage(CONTRACT, slot(4), new Uint8Array(0));
  await sm.putAccount(EOA, undefined);
  await sm.revert();
  await sm.commit();
  assert.deepEqual(await sm.getStorage(CONTRACT, slot(4)), Uint8Array.of(0x44));
  assert.equal((await sm.getAccount(EOA))?.balance, 100n);
});

test("an account the chain deleted stays deleted; one it created never asks for storage", async () => {
  const reads: string[] = [];
  const f = forked(reads);
  const sm = f.state;
  await sm.checkpoint();
  await sm.deleteAccount(EOA);
  const fresh = new Address(new Uint8Array(20).fill(0x11));
  await sm.putAccount(fresh, new Account(0n, 1n, undefined, KECCAK256_NULL));
  await sm.commit();
  await seal(f, 1, {
    accounts: [
      [EOA, undefined],
      [fresh, { nonce: 0n, balance: 1n, codeHash: undefined }],
    ],
  });
  reorged(f);
  assert.equal(await sm.getAccount(EOA), undefined);
  reads.length = 0;
  assert.deepEqual(await sm.getStorage(fresh, slot(9)), new Uint8Array(0));
  // Whether it existed at F is asked once; its slots never are (no code at F, no storage).
  assert.deepEqual(
    reads.filter((r) => r.startsWith("slot")),
    [],
    "no upstream read of a slot of an account without code at F",
  );
});

test("code the chain deployed is read back from the archive once the head moved", async () => {
  const reads: string[] = [];
  // An upstream with no code anywhere: what the chain deploys is its own alone.
  const f = forked(reads, { ...upstream(reads), code: async () => new Uint8Array(0) });
  const sm = f.state;
  const deployed = new Address(new Uint8Array(20).fill(0x22));
  const runtime = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3);
  await sm.checkpoint();
  await sm.putAccount(deployed, new Account(1n, 0n));
  await sm.putCode(deployed, runtime);
  await sm.commit();
  const hash = keccak256(runtime);
  f.archive.code.set(bytesToUnprefixedHex(hash), runtime);
  await seal(f, 1, { accounts: [[deployed, { nonce: 1n, balance: 0n, codeHash: hash }]] });
  reorged(f);
  assert.deepEqual(await sm.getCode(deployed), runtime);
  assert.equal(await sm.getCodeSize(deployed), runtime.length);
});
