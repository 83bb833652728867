// State at a fork block, fetched from a real upstream (anvil, moved on past F) through a counting
// proxy, and kept in a real datadir.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import {
  ANVIL_SENDER,
  type Anvil,
  moveOn,
  RECEIVER,
  type SeededChain,
  seedChain,
  startAnvilUpstream,
  word,
} from "../../test/utils/anvilUpstream.ts";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { type RpcProxy, startRpcProxy } from "../../test/utils/rpcProxy.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToBigInt, bytesToHex, hexToBytes } from "../util/hex.ts";
import { UpstreamClient } from "./client.ts";
import { UpstreamNotArchiveError, UpstreamUnavailableError } from "./errors.ts";
import type { ForkPoint } from "./forkCache.ts";
import { checkArchive, ForkPointError, recordForkPoint, resolveForkPoint } from "./forkPoint.ts";
import { createForkState } from "./forkState.ts";
import { upstreamOptions } from "./options.ts";

let anvil: Anvil;
let proxy: RpcProxy;
let chain: SeededChain;
let fork: ForkPoint;
const envs: KvEnv[] = [];
const clients: UpstreamClient[] = [];
const NOBODY = "0x2000000000000000000000000000000000000002";

before(async () => {
  anvil = await startAnvilUpstream();
  chain = await seedChain(anvil);
  await moveOn(anvil, chain);
  proxy = await startRpcProxy(anvil.url);
  fork = { chainId: 31337n, number: chain.fork.number, hash: hexToBytes(chain.fork.hash) };
});
after(async () => {
  for (const c of clients) c.close();
  for (const e of envs) if (e.isOpen()) await e.close();
  // A failed before() leaves these unset: its own error is the one to read.
  await proxy?.close();
  anvil?.stop();
});
beforeEach(() => {
  proxy.resetCounts();
  proxy.fault = undefined;
  proxy.intercept = undefined;
});

function client(): UpstreamClient {
  const c = new UpstreamClient(upstreamOptions(proxy.url, { retryBackoffMs: 5 }));
  clients.push(c);
  return c;
}

function env(dir = tempDatadir("fork")): KvEnv {
  const e = openKvEnv(dir, { noSync: true });
  envs.push(e);
  return e;
}

const b = (h: string) => hexToBytes(h);
/** The next macrotask: the cache commits its writes there. */
const nextTick = () => new Promise((r) => setImmediate(r));

test("state at F equals anvil's at F, after anvil moved on", async () => {
  const state = createForkState({ client: client(), env: env(), fork });
  const at = `0x${fork.number.toString(16)}`;
  for (const address of [chain.contract, RECEIVER, ANVIL_SENDER, NOBODY]) {
    const account = await state.account(b(address));
    const [balance, nonce, code] = await Promise.all([
      anvil.rpc<string>("eth_getBalance", [address, at]),
      anvil.rpc<string>("eth_getTransactionCount", [address, at]),
      anvil.rpc<string>("eth_getCode", [address, at]),
    ]);
    if (BigInt(balance) === 0n && BigInt(nonce) === 0n && code === "0x") {
      assert.equal(account, undefined, address);
      continue;
    }
    assert.ok(account !== undefined, address);
    assert.equal(account.balance, BigInt(balance), address);
    assert.equal(account.nonce, BigInt(nonce), address);
    assert.equal(bytesToHex(account.code), code, address);
    assert.equal(bytesToHex(await state.code(b(address))), code, address);
    if (code !== "0x") assert.deepEqual(account.codeHash, keccak256(b(code)));
  }
  for (let slot = 0n; slot <= 6n; slot++) {
    const want = await anvil.rpc<string>("eth_getStorageAt", [chain.contract, word(slot), at]);
    const got = await state.storage(b(chain.contract), b(word(slot)));
    assert.equal(bytesToBigInt(got), BigInt(want), `slot ${slot}`);
  }
  // The chain moved on: slot 1 is 999 and slot 6 is set upstream now, not at F.
  assert.equal(bytesToBigInt(await state.storage(b(chain.contract), b(word(1n)))), 100n);
  assert.equal((await state.storage(b(chain.contract), b(word(6n)))).length, 0);
});

test("concurrent misses of one key are one request", async () => {
  const state = createForkState({ client: client(), env: env(), fork });
  const slot = b(word(2n));
  const reads = await Promise.all(
    [1, 2, 3, 4, 5].map(() => state.storage(b(chain.contract), slot)),
  );
  for (const r of reads) assert.equal(bytesToBigInt(r), 200n);
  const accounts = await Promise.all([1, 2, 3].map(() => state.account(b(RECEIVER))));
  for (const a of accounts) assert.equal(a?.balance, 10n ** 18n);
  assert.equal(proxy.methods.get("eth_getStorageAt"), 1);
  assert.equal(proxy.methods.get("eth_getBalance"), 1);
  assert.equal(proxy.methods.get("eth_getCode"), 1);
  assert.equal(state.stats().storageFetches, 1);
});

test("misses of one tick go out as one batch; a prefetch leaves nothing to fetch", async () => {
  const state = createForkState({ client: client(), env: env(), fork });
  const slots = [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n].map((s) => b(word(s)));
  await Promise.all([
    ...slots.map((s) => state.storage(b(chain.contract), s)),
    state.account(b(chain.contract)),
    state.account(b(RECEIVER)),
  ]);
  assert.equal(proxy.requests, 1);
  assert.equal(proxy.batches, 1);
  assert.equal(proxy.calls, 8 + 2 * 3);

  proxy.resetCounts();
  const other = createForkState({ client: client(), env: env(), fork });
  await other.prefetch(
    [b(ANVIL_SENDER), b(chain.contract)],
    slots.map((s) => [b(chain.contract), s] as const),
  );
  assert.equal(proxy.requests, 1);
  assert.equal(other.peekStorage(b(chain.contract), b(word(3n)))?.[0], 0x01); // 300 = 0x012c
  assert.equal(other.peekAccount(b(NOBODY)), undefined, "not fetched: unknown");
  await other.account(b(ANVIL_SENDER));
  await other.storage(b(chain.contract), b(word(5n)));
  assert.equal(proxy.requests, 1, "served from the prefetch");
});

test("a restart on the same datadir fetches nothing; another F does not see F's values", async () => {
  const dir = tempDatadir("fork-restart");
  const first = env(dir);
  const state = createForkState({ client: client(), env: first, fork });
  await state.account(b(RECEIVER));
  await state.storage(b(chain.contract), b(word(4n)));
  await nextTick();
  await first.close();
  proxy.resetCounts();

  const second = env(dir);
  const again = createForkState({ client: client(), env: second, fork });
  assert.equal((await again.account(b(RECEIVER)))?.balance, 10n ** 18n);
  assert.equal(bytesToBigInt(await again.storage(b(chain.contract), b(word(4n)))), 400n);
  assert.equal(proxy.requests, 0);

  // F − 1: RECEIVER was not paid yet. Same datadir, same chain, another block: fetched anew.
  const parent = await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [
    `0x${(fork.number - 1n).toString(16)}`,
    false,
  ]);
  const earlier = createForkState({
    client: client(),
    env: second,
    fork: { chainId: fork.chainId, number: fork.number - 1n, hash: b(parent.hash) },
  });
  assert.equal(await earlier.account(b(RECEIVER)), undefined);
  assert.equal(proxy.methods.get("eth_getBalance"), 1);
});

test("with the upstream down, cached reads answer and uncached ones fail within the budget", async () => {
  const e = env();
  const warm = createForkState({ client: client(), env: e, fork });
  await warm.storage(b(chain.contract), b(word(3n)));
  await warm.account(b(chain.contract));
  await nextTick();
  // A short budget only once the upstream hangs: the warm-up must not race it under load.
  const state = createForkState({ client: client(), env: e, fork, readDeadlineMs: 500 });
  proxy.fault = () => "hang";
  assert.equal(bytesToBigInt(await state.storage(b(chain.contract), b(word(3n)))), 300n);
  assert.ok((await state.code(b(chain.contract))).length > 0);
  await assert.rejects(state.storage(b(chain.contract), b(word(9n))), UpstreamUnavailableError);
  await assert.rejects(state.account(b(NOBODY)), UpstreamUnavailableError);
});

const MISSING = "missing trie node 7e1a2b (path ) state 0x7e1a2b is not available";

test("a non-archive upstream is detected at start, and named on a later read", async () => {
  proxy.intercept = (call) =>
    JSON.stringify(call.params).includes("blockHash")
      ? { error: { code: -32000, message: MISSING } }
      : undefined;
  const c = client();
  await assert.rejects(checkArchive(c, fork), (e: unknown) => {
    assert.ok(e instanceof UpstreamNotArchiveError);
    assert.equal(
      e.message,
      `the upstream at ${c.host} has no state for block ${fork.number} (${chain.fork.hash}) (missing trie node): use an archive node, or a fork block within its state window`,
    );
    return true;
  });
  const state = createForkState({ client: c, env: env(), fork });
  await assert.rejects(state.storage(b(chain.contract), b(word(1n))), UpstreamNotArchiveError);
  proxy.intercept = undefined;
  await checkArchive(c, fork);
});

test("the fork point: by number, below the head, past the head; a known one offline", async () => {
  const e = env();
  const c = client();
  const head = await c.blockNumber();
  const resolved = await resolveForkPoint(c, e, { blockNumber: fork.number });
  assert.equal(resolved.known, false);
  assert.equal(resolved.fork.chainId, 31337n);
  assert.deepEqual(resolved.fork.hash, fork.hash);
  assert.ok(Array.isArray(resolved.block.transactions));
  const below = await resolveForkPoint(c, e, { blockNumber: -2n });
  assert.equal(below.fork.number, head - 2n);
  const dflt = await resolveForkPoint(c, e, { depth: 1n });
  assert.equal(dflt.fork.number, head - 1n);
  await assert.rejects(resolveForkPoint(c, e, { blockNumber: head + 10n }), ForkPointError);

  recordForkPoint(e, resolved.fork);
  proxy.resetCounts();
  const offline = await resolveForkPoint(c, e, { chainId: 31337n, blockNumber: fork.number });
  assert.equal(offline.known, true);
  assert.deepEqual(offline.fork.hash, fork.hash);
  assert.equal(offline.block.hash, chain.fork.hash);
  assert.equal(proxy.requests, 0);
});
