// History at or below a fork block, served from a real upstream (anvil, moved on past F) through
// a counting proxy that can refuse methods and wide log ranges, and kept in a real datadir.
import assert from "node:assert/strict";
import { after, before, beforeEach, test } from "node:test";
import {
  type Anvil,
  moveOn,
  type SeededChain,
  seedChain,
  startAnvilUpstream,
} from "../../test/utils/anvilUpstream.ts";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { type RpcProxy, startRpcProxy } from "../../test/utils/rpcProxy.ts";
import { type KvEnv, openKvEnv } from "../store/lmdb.ts";
import { hexToBytes } from "../util/hex.ts";
import { UpstreamClient } from "./client.ts";
import type { ForkPoint } from "./forkCache.ts";
import { createForkHistory } from "./history.ts";
import { upstreamOptions } from "./options.ts";

let anvil: Anvil;
let proxy: RpcProxy;
let chain: SeededChain;
let fork: ForkPoint;
let after1: string[];
const envs: KvEnv[] = [];
const clients: UpstreamClient[] = [];
const b = (h: string) => hexToBytes(h);
const q = (n: bigint) => `0x${n.toString(16)}`;

before(async () => {
  anvil = await startAnvilUpstream();
  chain = await seedChain(anvil);
  const before = await anvil.rpc<string>("eth_blockNumber");
  await moveOn(anvil, chain);
  const head = BigInt(await anvil.rpc<string>("eth_blockNumber"));
  after1 = [];
  for (let n = BigInt(before) + 1n; n <= head; n++) {
    const blk = await anvil.rpc<{ transactions: string[] }>("eth_getBlockByNumber", [q(n), false]);
    after1.push(...blk.transactions);
  }
  proxy = await startRpcProxy(anvil.url);
  fork = { chainId: 31337n, number: chain.fork.number, hash: b(chain.fork.hash) };
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

function history(f: ForkPoint = fork) {
  const client = new UpstreamClient(upstreamOptions(proxy.url, { retryBackoffMs: 5 }));
  clients.push(client);
  const env = openKvEnv(tempDatadir("history"), { noSync: true });
  envs.push(env);
  return createForkHistory({ client, env, fork: f });
}

test("blocks, receipts and transactions at or below F equal anvil's; the rest is not served", async () => {
  const h = history();
  const read = async () => {
    for (let n = 0n; n <= fork.number; n++) {
      const full = await h.blockByNumber(n, true);
      assert.deepEqual(full, await anvil.rpc("eth_getBlockByNumber", [q(n), true]), `block ${n}`);
      assert.deepEqual(
        await h.blockByNumber(n, false),
        await anvil.rpc("eth_getBlockByNumber", [q(n), false]),
      );
      const hash = (full as { hash: string }).hash;
      assert.deepEqual(
        await h.blockByHash(b(hash), false),
        await anvil.rpc("eth_getBlockByHash", [hash, false]),
      );
      assert.deepEqual(
        await h.blockReceipts(b(hash)),
        await anvil.rpc("eth_getBlockReceipts", [hash]),
      );
    }
    for (const tx of chain.txs) {
      assert.deepEqual(
        await h.transaction(b(tx)),
        await anvil.rpc("eth_getTransactionByHash", [tx]),
      );
      assert.deepEqual(await h.receipt(b(tx)), await anvil.rpc("eth_getTransactionReceipt", [tx]));
    }
  };
  await read();
  const fetched = proxy.requests;
  assert.ok(fetched > 0);
  await read();
  assert.equal(proxy.requests, fetched, "everything at or below F is fetched once");

  assert.equal(await h.blockByNumber(fork.number + 1n, true), null);
  const next = await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [
    q(fork.number + 1n),
    false,
  ]);
  assert.equal(await h.blockByHash(b(next.hash), true), null);
  for (const tx of after1) {
    assert.equal(await h.transaction(b(tx)), null, "mined after F");
    assert.equal(await h.receipt(b(tx)), null);
  }
});

test("receipts come one per transaction where eth_getBlockReceipts is refused (Base: 403 -32001)", async () => {
  proxy.fault = ({ calls }) =>
    calls.some((c) => c.method === "eth_getBlockReceipts")
      ? {
          status: 403,
          headers: { "content-type": "application/json" },
          body: '{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"rpc method is not whitelisted"}}',
        }
      : undefined;
  const h = history();
  for (let n = 1n; n <= fork.number; n++) {
    const blk = await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [q(n), false]);
    assert.deepEqual(
      await h.blockReceipts(b(blk.hash)),
      await anvil.rpc("eth_getBlockReceipts", [blk.hash]),
    );
  }
  assert.equal(proxy.methods.get("eth_getBlockReceipts"), 1, "refused once, then not asked again");
  assert.equal(proxy.methods.get("eth_getTransactionReceipt"), chain.txs.length);
});

test("eth_getLogs is chunked to the upstream's range limit, the size remembered, results cached", async () => {
  const LIMIT = 3n;
  let refusals = 0;
  proxy.intercept = (call) => {
    if (call.method !== "eth_getLogs") return undefined;
    const f = call.params[0] as { fromBlock: string; toBlock: string };
    if (BigInt(f.toBlock) - BigInt(f.fromBlock) + 1n <= LIMIT) return undefined;
    refusals++;
    return { error: { code: -32600, message: "block range is too wide" } };
  };
  const h = history();
  const all = await h.logs({
    fromBlock: 0n,
    toBlock: fork.number + 5n,
    addresses: [b(chain.contract)],
  });
  const want = await anvil.rpc<unknown[]>("eth_getLogs", [
    { fromBlock: "0x0", toBlock: q(fork.number), address: chain.contract },
  ]);
  assert.equal(want.length, 5);
  assert.deepEqual(all, want);

  proxy.resetCounts();
  assert.deepEqual(
    await h.logs({ fromBlock: 0n, toBlock: fork.number, addresses: [b(chain.contract)] }),
    want,
  );
  assert.equal(proxy.requests, 0, "cached");

  const topic = `0x${"00".repeat(31)}03`;
  const one = await h.logs({ fromBlock: 1n, toBlock: fork.number, topics: [[b(topic)]] });
  assert.deepEqual(
    one,
    await anvil.rpc("eth_getLogs", [
      { fromBlock: "0x1", toBlock: q(fork.number), topics: [topic] },
    ]),
  );
  assert.equal(one.length, 1);
  assert.equal(refusals, 2, "8 blocks refused, then 4: the learnt size (2) is kept");
  assert.deepEqual(await h.logs({ fromBlock: fork.number + 1n, toBlock: fork.number + 9n }), []);
});

// A Base block with its L1-info deposit, as an OP-stack node answers it (fields from op-geth).
const DEPOSIT = {
  type: "0x7e",
  hash: `0x${"d1".repeat(32)}`,
  sourceHash: `0x${"5c".repeat(32)}`,
  from: "0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001",
  to: "0x4200000000000000000000000000000000000015",
  mint: "0x0",
  value: "0x0",
  gas: "0xf4240",
  isSystemTx: false,
  input: "0x440a5e20",
  nonce: "0x1a2b",
  blockHash: `0x${"b0".repeat(32)}`,
  blockNumber: "0x64",
  transactionIndex: "0x0",
  depositReceiptVersion: "0x1",
  gasPrice: "0x0",
  v: "0x0",
  r: "0x0",
  s: "0x0",
};
const OP_BLOCK = {
  number: "0x64",
  hash: DEPOSIT.blockHash,
  parentHash: `0x${"a0".repeat(32)}`,
  timestamp: "0x6700000",
  transactions: [DEPOSIT],
};
const OP_RECEIPT = {
  type: "0x7e",
  status: "0x1",
  transactionHash: DEPOSIT.hash,
  blockHash: DEPOSIT.blockHash,
  blockNumber: "0x64",
  transactionIndex: "0x0",
  gasUsed: "0xb3c1",
  logs: [],
  depositNonce: "0x1a2b",
  depositReceiptVersion: "0x1",
  l1Fee: "0x0",
  l1GasUsed: "0x640",
  l1GasPrice: "0x3b9aca00",
  l1BaseFeeScalar: "0x8dd",
  l1BlobBaseFee: "0x1",
  l1BlobBaseFeeScalar: "0x101c12",
};

test("OP-stack fields of blocks, deposits and receipts pass through untouched", async () => {
  proxy.intercept = (call) => {
    switch (call.method) {
      case "eth_getBlockByNumber":
      case "eth_getBlockByHash":
        return { result: OP_BLOCK };
      case "eth_getBlockReceipts":
        return { result: [OP_RECEIPT] };
      case "eth_getTransactionByHash":
        return { result: DEPOSIT };
      case "eth_getTransactionReceipt":
        return { result: OP_RECEIPT };
      default:
        return undefined;
    }
  };
  const h = history({ chainId: 8453n, number: 100n, hash: b(OP_BLOCK.hash) });
  assert.deepEqual(await h.blockByNumber(100n, true), OP_BLOCK);
  assert.deepEqual(await h.blockByNumber(100n, false), {
    ...OP_BLOCK,
    transactions: [DEPOSIT.hash],
  });
  assert.deepEqual(await h.blockReceipts(b(OP_BLOCK.hash)), [OP_RECEIPT]);
  assert.deepEqual(await h.transaction(b(DEPOSIT.hash)), DEPOSIT);
  assert.deepEqual(await h.receipt(b(DEPOSIT.hash)), OP_RECEIPT);
});
