// The dev methods with the tools that call them, unmodified: ethers' unlocked signer
// (provider.getSigner(): eth_sendTransaction, personal_sign, eth_signTypedData_v4), `cast send
// --unlocked` for a test account and an impersonated one, and the state, time and mining
// methods, each seen in `pending` as soon as it answers and sealed by the next block.
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { after, before, test } from "node:test";
import { JsonRpcProvider, verifyMessage, verifyTypedData } from "ethers";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { CAST, cast } from "../utils/cast.ts";
import { pollUntil, startTestDevNode, word } from "../utils/devChain.ts";
import { rpcCaller, tempDatadir } from "../utils/fixtures.ts";

let node: DevNode;
let provider: JsonRpcProvider;

type Receipt = {
  status: string;
  gasUsed: string;
  effectiveGasPrice: string;
  from: string;
  /** An OP-stack receipt's L1 data fee, when the chain charges one. */
  l1Fee?: string;
};

const rpc = rpcCaller(() => node.dedicatedUrl);

const balance = async (a: string, tag = "pending") =>
  BigInt(await rpc<string>("eth_getBalance", [a, tag]));
/** What the sender paid for the transaction, from its receipt. */
const fee = (r: Receipt) => BigInt(r.gasUsed) * BigInt(r.effectiveGasPrice) + BigInt(r.l1Fee ?? 0);

before(async () => {
  // Blocks seal only on evm_mine / anvil_mine: what is pre-confirmed stays in `pending`.
  node = await startTestDevNode({ blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
  provider = new JsonRpcProvider(node.dedicatedUrl, Number(node.chainId), {
    staticNetwork: true,
    pollingInterval: 50,
    cacheTimeout: -1,
  });
  // pending is latest until the sequencer's first flashblock.
  await pollUntil(
    () => rpc<{ hash: string }>("eth_getBlockByNumber", ["pending", false]),
    (b) => /^0x0+$/.test(b.hash),
  );
});
after(async () => {
  provider.destroy();
  await node.close();
});

test("eth_accounts lists the funded test accounts, as anvil does", async () => {
  const list = await rpc<string[]>("eth_accounts");
  assert.deepEqual(
    list,
    node.accounts.map((a) => a.address.toLowerCase()),
  );
  assert.deepEqual(await rpc("eth_requestAccounts"), list);
});

test("ethers' unlocked signer: sendTransaction, signMessage, signTypedData", async () => {
  const signer = await provider.getSigner(1);
  const to = node.accounts[5]!.address;
  const [fromBefore, toBefore] = [await balance(signer.address), await balance(to)];
  const sent = await signer.sendTransaction({ to, value: 12345n });
  const receipt = (await rpc<Receipt>("eth_getTransactionReceipt", [sent.hash])) ?? undefined;
  const mined = await sent.wait();
  assert.equal(mined?.status, 1);
  // The hash eth_sendTransaction answered is the transaction's everywhere.
  const byHash = await rpc<{ hash: string; from: string }>("eth_getTransactionByHash", [sent.hash]);
  assert.equal(byHash.hash, sent.hash);
  assert.equal(byHash.from, signer.address.toLowerCase());
  const r = receipt ?? (await rpc<Receipt>("eth_getTransactionReceipt", [sent.hash]));
  assert.equal(await balance(to), toBefore + 12345n);
  assert.equal(await balance(signer.address), fromBefore - 12345n - fee(r));

  const message = "flashnode dev";
  assert.equal(verifyMessage(message, await signer.signMessage(message)), signer.address);
  const domain = { name: "Dev", version: "1", chainId: Number(node.chainId) };
  const types = {
    Mail: [
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
    ],
  };
  const value = { to, amount: 7n };
  const signature = await signer.signTypedData(domain, types, value);
  assert.equal(verifyTypedData(domain, types, value, signature), signer.address);
});

test("a key the node does not hold: No Signer available (-32602), as anvil", async () => {
  const body = await fetch(node.dedicatedUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "eth_sendTransaction",
      params: [
        { from: "0x0000000000000000000000000000000000000009", to: node.accounts[0]!.address },
      ],
    }),
  }).then((r) => r.json() as Promise<{ error?: unknown }>);
  assert.deepEqual(body.error, { code: -32602, message: "No Signer available" });
});

test("anvil_set*: visible in pending when the call answers, sealed by the next block", async () => {
  const a = "0x1000000000000000000000000000000000000001";
  const head = Number(await rpc<string>("eth_blockNumber"));
  assert.equal(await rpc("anvil_setBalance", [a, "0xde0b6b3a7640000"]), null);
  assert.equal(await rpc("hardhat_setNonce", [a, "0x7"]), null);
  assert.equal(await rpc("anvil_setCode", [a, "0x6001600101"]), null);
  assert.equal(await rpc("anvil_setStorageAt", [a, 3, word(0xbeefn)]), true);
  // No polling: each write was published before its call answered.
  assert.equal(await balance(a), 10n ** 18n);
  assert.equal(await rpc("eth_getTransactionCount", [a, "pending"]), "0x7");
  assert.equal(await rpc("eth_getCode", [a, "pending"]), "0x6001600101");
  assert.equal(await rpc("eth_getStorageAt", [a, "0x3", "pending"]), word(0xbeefn));
  assert.equal(await balance(a, "latest"), 0n);
  assert.equal(await rpc("evm_mine"), "0x0");
  assert.equal(Number(await rpc<string>("eth_blockNumber")), head + 1);
  assert.equal(await balance(a, "latest"), 10n ** 18n);
  assert.equal(await rpc("eth_getStorageAt", [a, "0x3", "latest"]), word(0xbeefn));
  assert.equal(await rpc("eth_getCode", [a, "latest"]), "0x6001600101");
  // The archive keeps the block before: the history of the written slot and balance.
  assert.equal(await balance(a, `0x${head.toString(16)}`), 0n);
  assert.equal(await rpc("eth_getStorageAt", [a, "0x3", `0x${head.toString(16)}`]), word(0n));
});

test("impersonation: an unsigned transaction from any account, a contract included", async () => {
  // The account written above has code: anvil lets an impersonated contract send (no EIP-3607).
  const a = "0x1000000000000000000000000000000000000001";
  const to = node.accounts[6]!.address;
  await rpc("anvil_impersonateAccount", [a]);
  assert.ok((await rpc<string[]>("eth_accounts")).includes(a));
  const [aBefore, toBefore] = [await balance(a), await balance(to)];
  const hash = await rpc<string>("eth_sendTransaction", [{ from: a, to, value: "0x1000" }]);
  const receipt = await pollUntil(
    () => rpc<Receipt | null>("eth_getTransactionReceipt", [hash]),
    (r) => r !== null,
  );
  assert.equal(receipt!.status, "0x1");
  assert.equal(receipt!.from, a);
  const tx = await rpc<{ hash: string; from: string; nonce: string }>("eth_getTransactionByHash", [
    hash,
  ]);
  assert.equal(tx.hash, hash);
  assert.equal(tx.from, a);
  assert.equal(tx.nonce, "0x7");
  assert.equal(await balance(to), toBefore + 0x1000n);
  assert.equal(await balance(a), aBefore - 0x1000n - fee(receipt!));
  await rpc("anvil_stopImpersonatingAccount", [a]);
  assert.ok(!(await rpc<string[]>("eth_accounts")).includes(a));
  await assert.rejects(
    rpc("eth_sendTransaction", [{ from: a, to, value: "0x1" }]),
    /No Signer available/,
  );
  // anvil_autoImpersonateAccount: every account.
  await rpc("anvil_autoImpersonateAccount", [true]);
  const h2 = await rpc<string>("eth_sendTransaction", [{ from: a, to, value: "0x1" }]);
  await pollUntil(
    () => rpc("eth_getTransactionReceipt", [h2]),
    (r) => r !== null,
  );
  await rpc("anvil_autoImpersonateAccount", [false]);
  await rpc("evm_mine");
  // Sealed, the transaction is the same one: same hash, same sender.
  const sealed = await rpc<{ blockHash: string; from: string }>("eth_getTransactionByHash", [hash]);
  assert.notEqual(sealed.blockHash, `0x${"0".repeat(64)}`);
  assert.equal(sealed.from, a);
  // Replayed as it ran: sent by the contract, with the block's dev writes before it.
  const trace = await rpc<{ from: string; value: string }>("debug_traceTransaction", [
    hash,
    { tracer: "callTracer" },
  ]);
  assert.equal(trace.from, a);
  assert.equal(trace.value, "0x1000");
  // Calls from a contract run too (geth skips the EIP-3607 sender check for calls).
  assert.equal(await rpc("eth_estimateGas", [{ from: a, to, value: "0x1" }]), "0x5208");
});

test("the end of time: a block at the largest timestamp is not sealed; evm_revert goes back", async () => {
  await assert.rejects(
    rpc("evm_setNextBlockTimestamp", ["0xffffffffffffffff"]),
    /The timestamp is too big/,
  );
  const snap = await rpc<string>("evm_snapshot");
  const head = Number(await rpc<string>("eth_blockNumber"));
  await assert.rejects(
    rpc("evm_mine", [{ timestamp: "0x20000000000001", blocks: 1 }]),
    /The timestamp is too big/,
  );
  // The EVM library reads fork times as JavaScript numbers: dev time ends at 2^53 - 1.
  await rpc("evm_setNextBlockTimestamp", ["0x1ffffffffffffe"]);
  await rpc("evm_mine");
  assert.equal(Number(await rpc<string>("eth_blockNumber")), head + 1);
  const sealed = await rpc<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false]);
  assert.equal(sealed.timestamp, "0x1ffffffffffffe");
  // The block now open has the last second there is: no block could follow it.
  const open = await rpc<{ timestamp: string }>("eth_getBlockByNumber", ["pending", false]);
  assert.equal(open.timestamp, "0x1fffffffffffff");
  await assert.rejects(rpc("evm_mine"), /largest timestamp a dev block may have/);
  await assert.rejects(rpc("anvil_mine", ["0x2"]), /largest timestamp a dev block may have/);
  assert.equal(Number(await rpc<string>("eth_blockNumber")), head + 1);
  // Pending still serves: a transfer is pre-confirmed in the open block.
  const to = node.accounts[8]!.address;
  const before = await balance(to);
  await rpc("eth_sendTransaction", [{ from: node.accounts[8]!.address, to, value: "0x0" }]);
  await pollUntil(
    () => rpc<{ transactions: string[] }>("eth_getBlockByNumber", ["pending", false]),
    (b) => b.transactions.length > 1,
  );
  assert.ok((await balance(to)) < before, "the sender paid its fee in pending");
  assert.equal(await rpc("evm_revert", [snap]), true);
  assert.equal(Number(await rpc<string>("eth_blockNumber")), head);
  await rpc("evm_mine");
  const next = await rpc<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false]);
  assert.ok(BigInt(next.timestamp) < 2n ** 40n, "time is back on the wall clock");
});

test("cast send --unlocked, for a test account and for an impersonated one", {
  skip: existsSync(CAST) ? false : "cast binary not installed",
}, async () => {
  const url = ["--rpc-url", node.dedicatedUrl];
  const from = node.accounts[3]!.address;
  const whale = "0x2000000000000000000000000000000000000002";
  const to = node.accounts[7]!.address;
  const toBefore = await balance(to, "pending");
  const out = JSON.parse(
    await cast("send", ...url, "--unlocked", "--from", from, "--json", to, "--value", "777"),
  ) as { status: string; from: string };
  assert.equal(out.status, "0x1");
  assert.equal(out.from, from.toLowerCase());
  await cast("rpc", ...url, "anvil_setBalance", whale, "1000000000000000000");
  await cast("rpc", ...url, "anvil_impersonateAccount", whale);
  const imp = JSON.parse(
    await cast("send", ...url, "--unlocked", "--from", whale, "--json", to, "--value", "333"),
  ) as { status: string; from: string; transactionHash: string };
  assert.equal(imp.status, "0x1");
  assert.equal(imp.from, whale);
  // Sealed, it replays as its sender's (debug_trace*).
  await rpc("evm_mine");
  const trace = await rpc<{ from: string; value: string }>("debug_traceTransaction", [
    imp.transactionHash,
    { tracer: "callTracer" },
  ]);
  assert.equal(trace.from, whale);
  assert.equal(trace.value, "0x14d");
  assert.equal(await balance(to, "pending"), toBefore + 777n + 333n);
});

test("time: evm_increaseTime and evm_setNextBlockTimestamp move the block being built", async () => {
  await rpc("evm_mine");
  const latest = async () =>
    BigInt((await rpc<{ timestamp: string }>("eth_getBlockByNumber", ["latest", false])).timestamp);
  // The offset is added to the wall clock (as anvil's): blocks mined quickly may already be a
  // few seconds ahead of it.
  const wall = BigInt(Math.floor(Date.now() / 1000));
  const offset = await rpc<number>("evm_increaseTime", [3600]);
  assert.equal(typeof offset, "number");
  // The block being built holds no transaction: it takes the new time at once.
  const pending = await rpc<{ timestamp: string }>("eth_getBlockByNumber", ["pending", false]);
  assert.ok(BigInt(pending.timestamp) >= wall + 3600n, `${pending.timestamp} vs ${wall}`);
  assert.ok(BigInt(pending.timestamp) > (await latest()));
  await rpc("evm_mine");
  assert.equal(await latest(), BigInt(pending.timestamp));
  const t = (await latest()) + 10_000n;
  assert.equal(await rpc("evm_setNextBlockTimestamp", [`0x${t.toString(16)}`]), null);
  await rpc("evm_mine");
  assert.equal(await latest(), t);
  // evm_mine with a timestamp (anvil's MineOptions).
  await rpc("evm_mine", [Number(t + 100n)]);
  assert.equal(await latest(), t + 100n);
  await assert.rejects(rpc("evm_setNextBlockTimestamp", [1]), /Timestamp error: 1 is lower/);
  // A block holding a pre-confirmed transaction takes the new time too: it is rebuilt with it
  // (test/e2e/devTimeRebuild.test.ts), and evm_mine seals it then, as anvil's would.
  const signer = await provider.getSigner(2);
  const sent = await signer.sendTransaction({ to: signer.address, value: 1n });
  await sent.wait();
  await rpc("evm_setNextBlockTimestamp", [Number(t + 5000n)]);
  await rpc("evm_mine");
  assert.equal(await latest(), t + 5000n);
  const sealed = await rpc<{ transactions: string[] }>("eth_getBlockByNumber", ["latest", false]);
  assert.ok(sealed.transactions.includes(sent.hash));
});

test("anvil_mine(blocks, interval) seals that many blocks, interval seconds apart", async () => {
  await rpc("evm_mine");
  const head = Number(await rpc<string>("eth_blockNumber"));
  assert.equal(await rpc("anvil_mine", ["0x3", 60]), null);
  assert.equal(Number(await rpc<string>("eth_blockNumber")), head + 3);
  const ts = async (n: number) =>
    BigInt(
      (await rpc<{ timestamp: string }>("eth_getBlockByNumber", [`0x${n.toString(16)}`, false]))
        .timestamp,
    );
  assert.equal((await ts(head + 3)) - (await ts(head + 2)), 60n);
  assert.equal((await ts(head + 2)) - (await ts(head + 1)), 60n);
  assert.equal(await rpc("hardhat_mine", []), null);
  assert.equal(Number(await rpc<string>("eth_blockNumber")), head + 4);
});

test("a restart after evm_revert rebuilds the block from the snapshot's record", async () => {
  const datadir = tempDatadir("dev-revert-restart");
  const opts = { datadir, blockTimeMs: 3_600_000, flashblockIntervalMs: 50 };
  let n = await startTestDevNode(opts);
  const call = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(n.dedicatedUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    return ((await res.json()) as { result: T }).result;
  };
  try {
    await pollUntil(
      () => call<{ hash: string }>("eth_getBlockByNumber", ["pending", false]),
      (b) => /^0x0+$/.test(b.hash),
    );
    const a = "0x3000000000000000000000000000000000000003";
    const from = n.accounts[0]!.address;
    const kept = await call<string>("eth_sendTransaction", [{ from, to: a, value: "0x11" }]);
    await pollUntil(
      () => call("eth_getTransactionReceipt", [kept]),
      (r) => r !== null,
    );
    await call("anvil_setBalance", [a, "0x500"]);
    const id = await call<string>("evm_snapshot");
    const dropped = await call<string>("eth_sendTransaction", [{ from, to: a, value: "0x22" }]);
    await call("evm_mine");
    await call("anvil_mine", [2]);
    assert.equal(await call("evm_revert", [id]), true);
    assert.equal(await call("eth_blockNumber"), "0x0");
    await n.close();
    n = await startTestDevNode(opts);
    // The pre-confirmed transaction and the write after it are back, in that order; the
    // transaction sent after the snapshot is not.
    const pending = await pollUntil(
      () => call<{ transactions: string[] }>("eth_getBlockByNumber", ["pending", false]),
      (b) => b.transactions.includes(kept),
    );
    assert.ok(pending.transactions.includes(kept));
    assert.ok(!pending.transactions.includes(dropped));
    assert.equal(await call("eth_getBalance", [a, "pending"]), "0x500");
    assert.equal(await call("eth_getTransactionReceipt", [dropped]), null);
    assert.equal(await call("eth_blockNumber"), "0x0");
  } finally {
    await n.close();
  }
});
