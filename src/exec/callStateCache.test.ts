import assert from "node:assert/strict";
import { test } from "node:test";
import type { StateView } from "../pending/pendingState.ts";
import { CallStateCache, CodeByHash } from "./callStateCache.ts";

const address = new Uint8Array(20).fill(1);
const slot = new Uint8Array(32).fill(2);
const hashA = new Uint8Array(32).fill(0xaa);
const hashB = new Uint8Array(32).fill(0xbb);

/** A source that counts its reads and answers `value` for every slot and nonce. */
function countingSource(value: number) {
  const reads = { account: 0, storage: 0, code: 0 };
  const view: StateView = {
    account: () => {
      reads.account++;
      return { nonce: BigInt(value), balance: 0n, codeHash: undefined };
    },
    storage: () => {
      reads.storage++;
      return new Uint8Array([value]);
    },
    code: () => {
      reads.code++;
      // A view into a larger buffer, as a record read can be.
      return new Uint8Array(64).fill(value).subarray(8, 16);
    },
  };
  return { reads, view };
}

test("a sealed block's reads are kept by its number and hash, not across blocks", () => {
  const cache = new CallStateCache();
  const a = countingSource(1);
  const first = cache.sealed(5, hashA, a.view);
  assert.equal(first.account(address)?.nonce, 1n);
  assert.deepEqual(first.storage(address, slot), new Uint8Array([1]));
  const again = cache.sealed(5, hashA, a.view);
  assert.equal(again.account(address)?.nonce, 1n);
  assert.deepEqual(again.storage(address, slot), new Uint8Array([1]));
  assert.deepEqual(a.reads, { account: 1, storage: 1, code: 0 });
  // Block 5 replaced (another hash): read afresh.
  const b = countingSource(2);
  const replaced = cache.sealed(5, hashB, b.view);
  assert.equal(replaced.account(address)?.nonce, 2n);
  assert.deepEqual(replaced.storage(address, slot), new Uint8Array([2]));
  assert.deepEqual(b.reads, { account: 1, storage: 1, code: 0 });
});

test("nothing is kept while reads may be placeholders", () => {
  let cacheable = false;
  const cache = new CallStateCache(() => cacheable);
  const a = countingSource(1);
  cache.sealed(5, hashA, a.view).storage(address, slot);
  cache.sealed(5, hashA, a.view).storage(address, slot);
  cache.sealed(5, hashA, a.view).code(hashA);
  cache.sealed(5, hashA, a.view).code(hashA);
  assert.deepEqual(a.reads, { account: 0, storage: 2, code: 2 });
  cacheable = true;
  cache.sealed(5, hashA, a.view).storage(address, slot);
  cache.sealed(5, hashA, a.view).storage(address, slot);
  assert.equal(a.reads.storage, 3);
});

test("code is one array of its own per hash, whichever view reads it", () => {
  const cache = new CallStateCache();
  const a = countingSource(3);
  const one = cache.withCode(a.view).code(hashA);
  const two = cache.sealed(9, hashB, a.view).code(hashA);
  assert.equal(one, two);
  assert.equal(a.reads.code, 1);
  assert.deepEqual(one, new Uint8Array(8).fill(3));
  assert.equal(one?.buffer.byteLength, 8);
});

test("code past the byte budget drops the least recently used", () => {
  const codes = new CodeByHash(16);
  let reads = 0;
  const read = () => {
    reads++;
    return new Uint8Array(8);
  };
  const yes = () => true;
  codes.get(hashA, read, yes);
  codes.get(hashB, read, yes);
  codes.get(hashA, read, yes);
  codes.get(new Uint8Array(32), read, yes);
  assert.equal(reads, 3);
  // hashB was the least recently used: gone; hashA kept.
  codes.get(hashA, read, yes);
  assert.equal(reads, 3);
  codes.get(hashB, read, yes);
  assert.equal(reads, 4);
});
