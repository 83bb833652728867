// The executor's state against the EVM library's own MerkleStateManager (the reference, a trie
// written at every write): random blocks of account, storage and code writes under nested
// checkpoints, commits and reverts, each read compared as it happens and each block's state root
// compared at its end; then the blocks are sealed into an archive in memory, and the next block
// runs on the state kept from the last (or a dropped block is forgotten).
import assert from "node:assert/strict";
import { test } from "node:test";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Account, Address, KECCAK256_NULL, KECCAK256_RLP } from "@ethereumjs/util";
import { MemoryHead } from "../../../test/utils/memoryHead.ts";
import { keccak256 } from "../../util/crypto.ts";
import { bytesToHex, bytesToUnprefixedHex, equalBytes } from "../../util/hex.ts";
import { ExecutionState, UnsupportedStateOperationError } from "./executionState.ts";

/** A small seeded generator (mulberry32): the same blocks on every run. */
function random(seed: number): (n: number) => number {
  let a = seed;
  return (n) => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n);
  };
}

const ADDRESSES = Array.from({ length: 6 }, (_, i) => new Address(new Uint8Array(20).fill(i + 1)));
const SLOTS = Array.from({ length: 5 }, (_, i) => {
  const s = new Uint8Array(32);
  s[31] = i;
  s[0] = i * 7;
  return s;
});
const CODES = [Uint8Array.of(0x60, 0x01), Uint8Array.of(0x60, 0x02, 0x00), new Uint8Array(0)];

type Both = { ref: MerkleStateManager; mine: ExecutionState };

async function sameReads(s: Both, label: string): Promise<void> {
  for (const a of ADDRESSES) {
    const r = await s.ref.getAccount(a);
    const m = await s.mine.getAccount(a);
    assert.equal(m === undefined, r === undefined, `${label}: ${a} exists`);
    if (r !== undefined && m !== undefined) {
      assert.equal(m.nonce, r.nonce, `${label}: nonce of ${a}`);
      assert.equal(m.balance, r.balance, `${label}: balance of ${a}`);
      assert.equal(bytesToHex(m.codeHash), bytesToHex(r.codeHash), `${label}: code hash of ${a}`);
      assert.deepEqual(await s.mine.getCode(a), await s.ref.getCode(a), `${label}: code of ${a}`);
    }
    for (const slot of SLOTS)
      assert.equal(
        bytesToHex(await s.mine.getStorage(a, slot)),
        bytesToHex(await s.ref.getStorage(a, slot)),
        `${label}: slot ${slot[31]} of ${a}`,
      );
  }
}

/** One random write (or a checkpoint, commit or revert), as the EVM would make it. */
async function step(s: Both, r: (n: number) => number, depth: { n: number }): Promise<void> {
  const a = ADDRESSES[r(ADDRESSES.length)]!;
  const exists = (await s.ref.getAccount(a)) !== undefined;
  const op = r(10);
  const both = async (f: (sm: MerkleStateManager | ExecutionState) => Promise<void>) => {
    await f(s.ref);
    await f(s.mine);
  };
  if (op === 0 && depth.n < 4) {
    depth.n++;
    await both((sm) => sm.checkpoint());
  } else if (op === 1 && depth.n > 1) {
    depth.n--;
    const revert = r(3) === 0;
    await both((sm) => (revert ? sm.revert() : sm.commit()));
  } else if (!exists || op === 2) {
    // A creation: the account written, its storage dropped (as the EVM's CREATE does).
    const fresh = new Account(BigInt(r(3)), BigInt(r(1000)));
    await both(async (sm) => {
      await sm.putAccount(a, fresh);
      await sm.clearStorage(a);
    });
  } else if (op === 3 && r(4) === 0) {
    await both((sm) => sm.deleteAccount(a));
  } else if (op <= 5) {
    const value = r(3) === 0 ? new Uint8Array(0) : Uint8Array.of(0, r(256), r(256));
    const slot = SLOTS[r(SLOTS.length)]!;
    await both((sm) => sm.putStorage(a, slot, value));
  } else if (op === 6) {
    const code = CODES[r(CODES.length)]!;
    await both((sm) => sm.putCode(a, code));
  } else {
    // As the EVM changes an account: the one it read, its fields set.
    const balance = BigInt(r(1_000_000));
    await both(async (sm) => {
      const account = (await sm.getAccount(a))!;
      account.nonce += 1n;
      account.balance = balance;
      await sm.putAccount(a, account);
    });
  }
}

test("random blocks: every read and every state root is the library's trie-backed manager's", async () => {
  const archive = new MemoryHead();
  const ref = new MerkleStateManager({
    trie: new MerklePatriciaTrie({ useKeyHashing: true }),
  });
  const mine = new ExecutionState(archive.headReads(), archive.trie(), keccak256);
  mine.moveToHead();
  const s = { ref, mine };
  const r = random(31);
  let number = 0;
  for (let block = 0; block < 60; block++) {
    const depth = { n: 1 };
    await ref.checkpoint();
    await mine.checkpoint();
    for (let i = 0; i < 40; i++) {
      await step(s, r, depth);
      if (i % 10 === 9) await sameReads(s, `block ${block} step ${i}`);
    }
    for (; depth.n > 0; depth.n--) {
      await ref.commit();
      await mine.commit();
    }
    const dropped = r(8) === 0;
    if (dropped) {
      // A refused block: the reference goes back to the last root, the state to the head.
      await ref.setStateRoot(archive.roots.get(number) ?? KECCAK256_RLP);
      archive.trieDb.discardPending();
      mine.moveToHead();
      await sameReads(s, `after dropped block ${block}`);
      continue;
    }
    const root = await mine.getStateRoot();
    assert.equal(bytesToHex(root), bytesToHex(await ref.getStateRoot()), `root of block ${block}`);
    await sameReads(s, `end of block ${block}`);
    // The archive takes the block: plain state as the reference has it, code, trie nodes.
    number++;
    for (const a of ADDRESSES) {
      const account = await ref.getAccount(a);
      const hasCode = account !== undefined && !equalBytes(account.codeHash, KECCAK256_NULL);
      archive.writeAccount(
        a.bytes,
        account === undefined
          ? undefined
          : {
              nonce: account.nonce,
              balance: account.balance,
              codeHash: hasCode ? account.codeHash : undefined,
            },
      );
      if (hasCode) archive.code.set(bytesToUnprefixedHex(account.codeHash), await ref.getCode(a));
      for (const slot of SLOTS) archive.writeSlot(a.bytes, slot, await ref.getStorage(a, slot));
    }
    mine.sealedAs(archive.commit(number, root));
    mine.moveToHead();
  }
  assert.ok(number > 40, "most blocks sealed");
});

test("a sealed block's state stays in memory for the next; a head moved elsewhere drops it", async () => {
  const archive = new MemoryHead();
  const mine = new ExecutionState(archive.headReads(), archive.trie(), keccak256);
  mine.moveToHead();
  const a = ADDRESSES[0]!;
  await mine.checkpoint();
  await mine.putAccount(a, new Account(1n, 5n));
  await mine.putStorage(a, SLOTS[1]!, Uint8Array.of(9));
  await mine.commit();
  const root = await mine.getStateRoot();
  archive.writeAccount(a.bytes, { nonce: 1n, balance: 5n, codeHash: undefined });
  archive.writeSlot(a.bytes, SLOTS[1]!, Uint8Array.of(9));
  mine.sealedAs(archive.commit(1, root));
  mine.moveToHead();
  archive.reads = 0;
  assert.equal((await mine.getAccount(a))?.balance, 5n);
  assert.deepEqual(await mine.getStorage(a, SLOTS[1]!), Uint8Array.of(9));
  assert.equal(archive.reads, 0, "the sealed block's writes are read from memory");
  // The archive goes back to another block 1 (a reorg, evm_revert and a new block): the state
  // reads the archive again, and sees its values.
  archive.writeAccount(a.bytes, { nonce: 1n, balance: 7n, codeHash: undefined });
  archive.head = { number: 1, hash: Uint8Array.of(0xb1) };
  archive.reads = 0;
  mine.moveToHead();
  assert.equal((await mine.getAccount(a))?.balance, 7n);
  assert.equal(archive.reads, 1);
  // A block collected but never written: its writes go, the head's cache stays.
  await mine.checkpoint();
  await mine.putAccount(a, new Account(2n, 1n));
  await mine.commit();
  mine.sealedAs({ number: 2, hash: Uint8Array.of(2) });
  mine.moveToHead();
  assert.equal((await mine.getAccount(a))?.balance, 7n);
  assert.equal(archive.reads, 1, "still the cache's");
});

test("EIP-7610: an account with storage shows a non-empty storage root; the state has no other root", async () => {
  const archive = new MemoryHead();
  const a = ADDRESSES[2]!;
  archive.writeAccount(a.bytes, { nonce: 0n, balance: 0n, codeHash: undefined });
  archive.writeSlot(a.bytes, SLOTS[0]!, Uint8Array.of(1));
  archive.head = { number: 0, hash: Uint8Array.of(0) };
  archive.roots.set(0, KECCAK256_RLP);
  const mine = new ExecutionState(archive.headReads(), archive.trie(), keccak256);
  mine.moveToHead();
  assert.notDeepEqual((await mine.getAccount(a))?.storageRoot, KECCAK256_RLP);
  assert.deepEqual((await mine.getAccount(ADDRESSES[3]!))?.storageRoot, undefined);
  await mine.checkpoint();
  await mine.clearStorage(a);
  assert.deepEqual((await mine.getAccount(a))?.storageRoot, KECCAK256_RLP, "wiped");
  await mine.putStorage(a, SLOTS[2]!, Uint8Array.of(3));
  assert.notDeepEqual((await mine.getAccount(a))?.storageRoot, KECCAK256_RLP);
  await assert.rejects(mine.setStateRoot(KECCAK256_RLP), UnsupportedStateOperationError);
});

test("a deployed account's code hash is a plain Uint8Array, as one decoded from the archive", async () => {
  const archive = new MemoryHead();
  const mine = new ExecutionState(archive.headReads(), archive.trie(), keccak256);
  mine.moveToHead();
  await mine.checkpoint();
  await mine.putCode(ADDRESSES[0]!, CODES[0]!);
  const hash = (await mine.getAccount(ADDRESSES[0]!))!.codeHash;
  // keccak256 gives a Buffer: its JSON and its slice() differ from a Uint8Array's, and a flashblock's
  // state diff carries it as it is.
  assert.equal(Object.getPrototypeOf(hash), Uint8Array.prototype);
  assert.deepEqual(hash, new Uint8Array(keccak256(CODES[0]!)));
});
