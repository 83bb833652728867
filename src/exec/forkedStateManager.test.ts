// The block builder's state on a forked chain, over an upstream given in the test (a fake of the
// layer below) and a real trie in memory: what the chain never wrote is the upstream's, what it
// wrote (and did not revert) is its own, across a reset to the head (a restart, a reorg).
import assert from "node:assert/strict";
import { test } from "node:test";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { Caches, CacheType } from "@ethereumjs/statemanager";
import { Account, Address, KECCAK256_NULL } from "@ethereumjs/util";
import type { AccountRecord } from "../chain/types.ts";
import type { UpstreamState } from "../services/upstreamState.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { ForkedStateManager } from "./forkedStateManager.ts";

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
    codeByHash: () => CODE,
    peekAccount: () => undefined,
    peekStorage: () => undefined,
    prefetch: async () => {},
  };
}

function manager(
  reads: string[],
  known: { accounts: Set<string>; slots: Set<string> },
  up: UpstreamState = upstream(reads),
) {
  const trie = new MerklePatriciaTrie({ useKeyHashing: true });
  // Caches as the executor has them: code reaches the trie's database only when flushed.
  const caches = new Caches({ code: { type: CacheType.LRU, size: 100 } });
  return new ForkedStateManager({ trie, caches }, keccak256, up, {
    accountKnown: (a) => known.accounts.has(bytesToUnprefixedHex(a)),
    slotKnown: (a, s) => known.slots.has(bytesToUnprefixedHex(a) + bytesToUnprefixedHex(s)),
  });
}

test("unwritten state is the upstream's; written state is the chain's, across a reset to its root", async () => {
  const reads: string[] = [];
  const known = { accounts: new Set<string>(), slots: new Set<string>() };
  const sm = manager(reads, known);
  assert.equal((await sm.getAccount(EOA))?.nonce, 7n);
  assert.deepEqual(await sm.getStorage(CONTRACT, slot(1)), Uint8Array.of(0x41));
  assert.deepEqual(await sm.getCode(CONTRACT), CODE);
  // A block writes slot 1 of the contract (nothing else of it) and zeroes slot 2.
  await sm.checkpoint();
  await sm.putStorage(CONTRACT, slot(1), Uint8Array.of(0x99));
  await sm.putStorage(CONTRACT, slot(2), new Uint8Array(0));
  await sm.commit();
  const root = await sm.getStateRoot();
  // What the archive learns of that block: the two slots (the account's record did not change).
  known.slots.add(bytesToUnprefixedHex(CONTRACT.bytes) + bytesToUnprefixedHex(slot(1)));
  known.slots.add(bytesToUnprefixedHex(CONTRACT.bytes) + bytesToUnprefixedHex(slot(2)));
  await sm.setStateRoot(root);
  assert.deepEqual(await sm.getStorage(CONTRACT, slot(1)), Uint8Array.of(0x99), "written");
  assert.deepEqual(await sm.getStorage(CONTRACT, slot(2)), new Uint8Array(0), "zeroed");
  assert.deepEqual(await sm.getStorage(CONTRACT, slot(3)), Uint8Array.of(0x43), "untouched");
  assert.deepEqual(await sm.getCode(CONTRACT), CODE, "the upstream's code");
  assert.equal((await sm.getAccount(CONTRACT))?.balance, 5n);
});

test("a reverted write is forgotten: the upstream's value shows again", async () => {
  const reads: string[] = [];
  const sm = manager(reads, { accounts: new Set(), slots: new Set() });
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
  const known = { accounts: new Set<string>(), slots: new Set<string>() };
  const sm = manager(reads, known);
  await sm.checkpoint();
  await sm.deleteAccount(EOA);
  const fresh = new Address(new Uint8Array(20).fill(0x11));
  await sm.putAccount(fresh, new Account(0n, 1n, undefined, KECCAK256_NULL));
  await sm.commit();
  const root = await sm.getStateRoot();
  known.accounts.add(bytesToUnprefixedHex(EOA.bytes));
  known.accounts.add(bytesToUnprefixedHex(fresh.bytes));
  await sm.setStateRoot(root);
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

test("code the chain deployed is read back from its own database once the caches are dropped", async () => {
  const reads: string[] = [];
  const known = { accounts: new Set<string>(), slots: new Set<string>() };
  // An upstream with no code anywhere: what the chain deploys is its own alone.
  const sm = manager(reads, known, { ...upstream(reads), code: async () => new Uint8Array(0) });
  const deployed = new Address(new Uint8Array(20).fill(0x22));
  const runtime = Uint8Array.of(0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3);
  await sm.checkpoint();
  await sm.putAccount(deployed, new Account(1n, 0n));
  await sm.putCode(deployed, runtime);
  await sm.commit();
  await sm.flush();
  const root = await sm.getStateRoot();
  known.accounts.add(bytesToUnprefixedHex(deployed.bytes));
  // A reset to the head (the follower does it before each block): the code cache is emptied.
  await sm.setStateRoot(root, true);
  assert.deepEqual(await sm.getCode(deployed), runtime);
  assert.equal(await sm.getCodeSize(deployed), runtime.length);
});
