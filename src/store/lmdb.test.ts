import assert from "node:assert/strict";
import { test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { decodeAccount, encodeAccount } from "./codec.ts";
import { openKvEnv } from "./lmdb.ts";

test("getFast is a view of exactly the value, whatever reads its length", async () => {
  const env = openKvEnv(tempDatadir("lmdb-fast"), { noSync: true });
  const t = env.table("accounts");
  const key = Uint8Array.of(1, 2, 3);
  const account = { nonce: 7n, balance: 10n ** 22n, codeHash: undefined };
  env.writeAtomically(() => t.put(key, encodeAccount(account)));
  const v = t.getFast(key);
  assert.ok(v !== undefined);
  // lmdb's own answer is its 16 MiB read buffer with `length` overridden; Node 24's
  // Buffer#slice (what RLP decoding calls) reads the typed array's own length.
  assert.equal(v.byteLength, v.length);
  assert.equal(Uint8Array.prototype.slice.call(v, 1).length, v.length - 1);
  assert.deepEqual(decodeAccount(v), account);
  assert.deepEqual(RLP.decode(v), RLP.decode(encodeAccount(account)));
  assert.equal(t.getFast(Uint8Array.of(9)), undefined);
  await env.close();
});
