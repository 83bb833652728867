import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
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

test("writeAtomicallySoon: resolved once committed, so another process reads it; a throw commits none of its puts", async () => {
  const datadir = tempDatadir("lmdb-soon");
  const env = openKvEnv(datadir);
  const t = env.table("meta");
  const key = Uint8Array.of(7);
  await assert.rejects(
    env.writeAtomicallySoon(() => {
      t.put(key, Uint8Array.of(1));
      throw new Error("half-way");
    }),
    /half-way/,
  );
  assert.equal(t.get(key), undefined, "a throw commits nothing");
  assert.equal(await env.writeAtomicallySoon(() => t.put(key, Uint8Array.of(2, 3))), undefined);
  assert.deepEqual([...(t.get(key) ?? [])], [2, 3]);
  // Another process's environment sees the commit as soon as the promise resolves (its flush to
  // disk may still be going on: the page cache is what a process kill leaves).
  const read = execFileSync(
    process.execPath,
    [
      "--import",
      "tsx",
      "--input-type=module",
      "-e",
      `import { openKvEnv } from ${JSON.stringify(new URL("./lmdb.ts", import.meta.url).href)};
       const env = openKvEnv(${JSON.stringify(datadir)}, { readOnly: true });
       const v = env.table("meta").get(Uint8Array.of(7));
       process.stdout.write(v === undefined ? "none" : Buffer.from(v).toString("hex"));
       await env.close();`,
    ],
    { encoding: "utf8" },
  );
  assert.equal(read, "0203");
  await env.close();
});
