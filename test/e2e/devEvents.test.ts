// Events on `flashnode dev` through the tools people use, unmodified: viem getLogs and
// watchContractEvent (HTTP filters), ethers queryFilter and contract.on. A pre-confirmed
// transaction's event is seen before its block seals (blocks here seal only on evm_mine), except
// by ethers' contract.on, which polls its filter only when the block number moves.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Contract, JsonRpcProvider } from "ethers";
import {
  createPublicClient,
  defineChain,
  http,
  keccak256,
  type Log,
  parseAbi,
  parseGwei,
  toHex,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
} from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

const ABI = parseAbi(["event Set(uint256 value)"]);
const ZERO_HASH = `0x${"00".repeat(32)}`;
let node: DevNode;
let contract: `0x${string}`;
let nonce = 0;

async function sendSet(value: bigint): Promise<string> {
  const account = privateKeyToAccount(node.accounts[3]!.privateKey as `0x${string}`);
  const raw = await account.signTransaction({
    chainId: Number(node.chainId),
    type: "eip1559",
    nonce: nonce++,
    gas: 100_000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    to: contract,
    data: setCalldata(value),
  });
  return (await call(node.dedicatedUrl, "eth_sendRawTransaction", [raw])) as string;
}

/** Sealed: the receipt carries a block hash (pre-confirmed receipts carry 32 zero bytes). */
async function sealed(hash: string): Promise<boolean> {
  const r = (await call(node.dedicatedUrl, "eth_getTransactionReceipt", [hash])) as {
    blockHash: string;
  } | null;
  return r !== null && r.blockHash !== ZERO_HASH;
}

/** The methods of a JSON-RPC request body (a call or a batch), in order. */
function methodsOf(body: unknown): string[] {
  const calls = JSON.parse(String(body)) as { method: string } | { method: string }[];
  return (Array.isArray(calls) ? calls : [calls]).map((c) => c.method);
}

/** A viem client, and the methods it sent so far (what the tests wait on, not time). */
function client() {
  const chain = defineChain({
    id: Number(node.chainId),
    name: "flashnode dev",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [node.dedicatedUrl] } },
  });
  const sent: string[] = [];
  const transport = http(node.dedicatedUrl, {
    onFetchRequest: (_request, init) => {
      sent.push(...methodsOf(init.body));
    },
  });
  const viem = createPublicClient({ chain, transport, pollingInterval: 50 });
  return { viem, count: (method: string) => sent.filter((m) => m === method).length };
}

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  const account = privateKeyToAccount(node.accounts[3]!.privateKey as `0x${string}`);
  const deploy = await account.signTransaction({
    chainId: Number(node.chainId),
    type: "eip1559",
    nonce: nonce++,
    gas: 200_000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    data: storageContractBytecode(keccak256(toHex("Set(uint256)"))),
  });
  const receipt = (await call(node.dedicatedUrl, "eth_sendRawTransactionSync", [deploy])) as {
    contractAddress: `0x${string}`;
  };
  contract = receipt.contractAddress;
  await call(node.dedicatedUrl, "evm_mine");
});

after(async () => {
  await node?.close();
});

test("viem getLogs: a pre-confirmed event at pending, then sealed with its block", async () => {
  const { viem } = client();
  const hash = await sendSet(7n);
  const pending = await pollUntil(
    () =>
      viem.getLogs({ address: contract, event: ABI[0], fromBlock: "latest", toBlock: "pending" }),
    (logs) => logs.length > 0,
    30_000,
  );
  assert.equal(await sealed(hash), false, "read before the seal");
  assert.equal(pending[0]!.transactionHash, hash);
  assert.equal(pending[0]!.args.value, 7n);
  assert.equal(pending[0]!.blockHash, ZERO_HASH);
  // Without pending, latest only: not there yet.
  assert.deepEqual(await viem.getLogs({ address: contract, event: ABI[0] }), []);
  await call(node.dedicatedUrl, "evm_mine");
  const all = await viem.getLogs({ address: contract, event: ABI[0], fromBlock: 0n });
  const found = all.find((l) => l.transactionHash === hash);
  assert.ok(found !== undefined && found.blockHash !== ZERO_HASH, "sealed with its block hash");
});

test("viem watchContractEvent over HTTP sees an event before its block seals, once", async () => {
  const { viem, count } = client();
  const polls = () => count("eth_getFilterChanges");
  const seen: Log[] = [];
  const unwatch = viem.watchContractEvent({
    address: contract,
    abi: ABI,
    eventName: "Set",
    poll: true,
    onLogs: (logs) => seen.push(...logs),
  });
  try {
    // Polled: eth_newFilter has been answered, the filter is installed.
    await pollUntil(
      async () => polls(),
      (n) => n >= 1,
    );
    const hash = await sendSet(8n);
    await pollUntil(
      async () => seen.length,
      (n) => n > 0,
      30_000,
    );
    assert.equal(await sealed(hash), false, "seen before the seal");
    assert.equal(seen[0]!.transactionHash, hash);
    await call(node.dedicatedUrl, "evm_mine");
    // viem polls one request at a time: once the second poll after the seal is sent, the first
    // one's answer (all the filter has to say about the sealed block) was delivered.
    const sealedAt = polls();
    await pollUntil(
      async () => polls(),
      (n) => n >= sealedAt + 2,
    );
    assert.equal(seen.filter((l) => l.transactionHash === hash).length, 1, "reported once");
  } finally {
    unwatch();
  }
});

test("ethers: queryFilter up to pending sees a pre-confirmed event; contract.on hears it once", async () => {
  const provider = new JsonRpcProvider(node.dedicatedUrl, Number(node.chainId), {
    staticNetwork: true,
    pollingInterval: 50,
    cacheTimeout: -1,
  });
  // What ethers sent and what it heard back, in order: the tests wait on these, not on time.
  const trace: Array<{ action: "sent" | "answered"; method: string }> = [];
  const methods = new Map<unknown, string>();
  provider.on("debug", (e: { action: string; payload?: unknown; result?: unknown }) => {
    const list = (v: unknown) => (Array.isArray(v) ? v : [v]) as { id: unknown; method: string }[];
    if (e.action === "sendRpcPayload")
      for (const p of list(e.payload)) {
        methods.set(p.id, p.method);
        trace.push({ action: "sent", method: p.method });
      }
    else if (e.action === "receiveRpcResult")
      for (const r of list(e.result))
        trace.push({ action: "answered", method: methods.get(r.id) ?? "?" });
  });
  const c = new Contract(contract, ["event Set(uint256 value)"], provider);
  try {
    const values: bigint[] = [];
    await c.on("Set", (value: bigint) => {
      values.push(value);
    });
    // Its first poll is sent once eth_newFilter has been answered: the filter is installed.
    await pollUntil(
      async () => trace.some((t) => t.action === "sent" && t.method === "eth_getFilterChanges"),
      (yes) => yes,
    );
    const hash = await sendSet(9n);
    const queried = await pollUntil(
      () => c.queryFilter("Set", 0, "pending"),
      (events) => events.some((e) => e.transactionHash === hash),
      30_000,
    );
    assert.equal(await sealed(hash), false, "queried before the seal");
    assert.equal(queried.at(-1)?.blockHash, ZERO_HASH);
    // ethers polls an installed filter when eth_blockNumber moves: it hears the event at the seal
    // (the filter reported it pre-confirmed), once.
    await call(node.dedicatedUrl, "evm_mine");
    await pollUntil(
      async () => values.length,
      (n) => n > 0,
      30_000,
    );
    const mark = trace.length;
    await call(node.dedicatedUrl, "evm_mine");
    // The filter is polled at the new block; its answer is handled before the next block-number
    // poll (a timer) is sent.
    await pollUntil(
      async () => {
        const since = trace.slice(mark);
        const answered = since.findIndex(
          (t) => t.action === "answered" && t.method === "eth_getFilterChanges",
        );
        return (
          answered >= 0 &&
          since.slice(answered).some((t) => t.action === "sent" && t.method === "eth_blockNumber")
        );
      },
      (yes) => yes,
    );
    assert.deepEqual(values, [9n]);
    const history = await c.queryFilter("Set", 0, "latest");
    assert.ok(history.some((e) => e.transactionHash === hash && e.blockHash !== ZERO_HASH));
  } finally {
    await c.removeAllListeners();
    provider.destroy();
  }
});
