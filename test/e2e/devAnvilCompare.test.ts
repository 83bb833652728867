// Every dev method against the real anvil (the devDependency, started as `npm run bench` starts
// it), side by side with `flashnode dev`, the same calls in the same order, valid and invalid:
// results and error codes must match; messages too, except where a row says why not.
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { startAnvil } from "../../bench/compare/peers.ts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { ROOT } from "../utils/fixtures.ts";
import { stopChild } from "../utils/processes.ts";

const ANVIL = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");

/**
 * How a row compares: `same` results or errors (code and message); `code`: the same error code,
 * our message geth's argument text (why: every flashnode method reports a bad argument as geth
 * does, "invalid argument N: …", not as serde words it); `type`: results of the same JSON type
 * whose values differ for the reason given; `differs`: deliberately another answer (why given).
 */
type Compare = "same" | "code" | "type" | "differs";
type Row = {
  readonly method: string;
  readonly params?: unknown[];
  readonly compare?: Compare;
  readonly why?: string;
  /** What flashnode answers where it deliberately differs. */
  readonly ours?: { readonly code: number } | { readonly result: unknown };
};

const GETH_TEXT = "geth's argument text";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const X = "0x1000000000000000000000000000000000000001";
const Y = "0x2000000000000000000000000000000000000002";
const NOBODY = "0x0000000000000000000000000000000000000009";
const WORD5 = `0x${"0".repeat(63)}5`;
const FAR = 4_000_000_000;
const TYPED = {
  types: {
    EIP712Domain: [
      { name: "name", type: "string" },
      { name: "chainId", type: "uint256" },
    ],
    Mail: [
      { name: "to", type: "address" },
      { name: "amount", type: "uint256" },
      { name: "note", type: "string" },
      { name: "tags", type: "bytes32[]" },
    ],
  },
  primaryType: "Mail",
  domain: { name: "Dev", chainId: 31337 },
  message: { to: A1, amount: "7", note: "hi", tags: [WORD5] },
};
const FULL_1559 = {
  from: A0,
  to: A1,
  value: "0x1",
  gas: "0x5208",
  maxFeePerGas: "0x77359400",
  maxPriorityFeePerGas: "0x3b9aca00",
  nonce: "0x0",
  chainId: "0x7a69",
};

const ROWS: readonly Row[] = [
  { method: "eth_accounts" },
  { method: "eth_requestAccounts" },
  { method: "eth_accounts", params: [1], compare: "code", why: GETH_TEXT },
  { method: "anvil_setBalance", params: [X, "0x10"] },
  { method: "anvil_setBalance", params: [X, 16] },
  { method: "anvil_setBalance", params: [X, "1000000000000000000"] },
  { method: "eth_getBalance", params: [X, "pending"] },
  { method: "hardhat_setBalance", params: [X, "0x20"] },
  { method: "eth_getBalance", params: [X, "pending"] },
  { method: "anvil_setBalance", params: [X], compare: "code", why: GETH_TEXT },
  { method: "anvil_setBalance", params: ["0x7099", "0x10"], compare: "code", why: GETH_TEXT },
  { method: "anvil_setBalance", params: [X, "0x10", 5], compare: "code", why: GETH_TEXT },
  { method: "anvil_setBalance", params: [X, "zz"], compare: "code", why: GETH_TEXT },
  { method: "anvil_setCode", params: [X, "0x6001"] },
  { method: "anvil_setCode", params: [X, "6002"] },
  { method: "eth_getCode", params: [X, "pending"] },
  { method: "hardhat_setCode", params: [X, "0x"] },
  { method: "eth_getCode", params: [X, "pending"] },
  { method: "anvil_setCode", params: [X, "0x601"], compare: "code", why: GETH_TEXT },
  { method: "anvil_setNonce", params: [X, "0x5"] },
  { method: "anvil_setNonce", params: [X, 6] },
  { method: "evm_setAccountNonce", params: [X, "0x7"] },
  { method: "eth_getTransactionCount", params: [X, "pending"] },
  {
    method: "anvil_setNonce",
    params: [X, "0x10000000000000000"],
    compare: "differs",
    why: "a nonce is 64 bits (geth, the trie's account); anvil takes a larger one silently",
    ours: { code: -32602 },
  },
  { method: "anvil_setStorageAt", params: [X, "0x0", WORD5] },
  { method: "anvil_setStorageAt", params: [X, 1, WORD5] },
  { method: "hardhat_setStorageAt", params: [X, "2", WORD5] },
  { method: "eth_getStorageAt", params: [X, "0x1", "pending"] },
  { method: "anvil_setStorageAt", params: [X, "0x0", "0x05"], compare: "code", why: GETH_TEXT },
  { method: "anvil_impersonateAccount", params: [X] },
  { method: "eth_accounts" },
  { method: "hardhat_stopImpersonatingAccount", params: [X] },
  { method: "eth_accounts" },
  { method: "hardhat_impersonateAccount", params: [X] },
  { method: "anvil_stopImpersonatingAccount", params: [X] },
  { method: "anvil_impersonateAccount", params: ["0x12"], compare: "code", why: GETH_TEXT },
  { method: "anvil_autoImpersonateAccount", params: [true] },
  { method: "anvil_autoImpersonateAccount", params: [false] },
  { method: "hardhat_autoImpersonateAccount", params: [false] },
  { method: "anvil_autoImpersonateAccount", params: ["yes"], compare: "code", why: GETH_TEXT },
  { method: "eth_sign", params: [A0, "0xdeadbeef"] },
  { method: "eth_sign", params: [NOBODY, "0xdeadbeef"] },
  { method: "personal_sign", params: ["0xdeadbeef", A0] },
  { method: "personal_sign", params: ["hello", A0], compare: "code", why: GETH_TEXT },
  { method: "eth_signTypedData_v4", params: [A0, TYPED] },
  { method: "eth_signTypedData_v4", params: [A0, JSON.stringify(TYPED)] },
  { method: "eth_signTypedData_v4", params: [NOBODY, TYPED] },
  { method: "eth_signTypedData_v4", params: [A0, 5], compare: "code", why: GETH_TEXT },
  { method: "eth_signTransaction", params: [FULL_1559] },
  {
    method: "eth_signTransaction",
    params: [
      { from: A0, to: A1, value: "0x1", gas: "0x5208", gasPrice: "0x77359400", nonce: "0x10" },
    ],
  },
  { method: "eth_signTransaction", params: [{ ...FULL_1559, from: NOBODY }] },
  { method: "eth_sendTransaction", params: [{ from: NOBODY, to: A1 }] },
  { method: "eth_sendTransaction", params: [], compare: "code", why: GETH_TEXT },
  // Every field given: the same signed bytes, so the same hash.
  { method: "eth_sendTransaction", params: [FULL_1559] },
  {
    method: "eth_sendTransaction",
    params: [{ from: A1, to: A0, value: "0x2" }],
    compare: "type",
    why: "a hash: the filled fees follow each chain's base fee",
  },
  // An impersonated account: no key signs for it, eth_sendTransaction sends without one.
  { method: "anvil_setBalance", params: [Y, "1000000000000000000"] },
  { method: "anvil_impersonateAccount", params: [Y] },
  { method: "eth_sign", params: [Y, "0xdeadbeef"] },
  { method: "eth_signTransaction", params: [{ ...FULL_1559, from: Y }] },
  {
    method: "eth_sendTransaction",
    params: [{ ...FULL_1559, from: Y }],
    compare: "type",
    why: "a hash: anvil hashes an impersonated transaction with its sender appended, flashnode the placeholder-signed encoding (one encoding everywhere)",
  },
  { method: "anvil_stopImpersonatingAccount", params: [Y] },
  { method: "evm_snapshot" },
  { method: "evm_snapshot", params: [1], compare: "code", why: GETH_TEXT },
  { method: "anvil_snapshot" },
  { method: "evm_revert", params: ["0x1"] },
  { method: "evm_revert", params: ["0x1"] },
  { method: "anvil_revert", params: [0] },
  { method: "evm_revert", params: ["0x99"] },
  { method: "evm_revert", params: [], compare: "code", why: GETH_TEXT },
  { method: "evm_revert", params: ["zz"], compare: "code", why: GETH_TEXT },
  {
    method: "evm_increaseTime",
    params: [100],
    compare: "type",
    why: "the clock's whole offset: anvil's counts the genesis time's distance from its start",
  },
  { method: "evm_increaseTime", params: [-5], compare: "code", why: GETH_TEXT },
  { method: "evm_setNextBlockTimestamp", params: [1] },
  { method: "evm_setNextBlockTimestamp", params: ["0x1"] },
  { method: "evm_setNextBlockTimestamp", params: ["abc"], compare: "code", why: GETH_TEXT },
  { method: "evm_setNextBlockTimestamp", params: ["0xffffffffffffffff"] },
  { method: "evm_setNextBlockTimestamp", params: [FAR] },
  { method: "evm_mine" },
  { method: "evm_mine", params: [FAR + 10] },
  { method: "evm_mine", params: [{ timestamp: FAR + 20, blocks: 2 }] },
  { method: "evm_mine", params: ["0x10"] },
  { method: "evm_mine", params: [{ timestamp: null, blocks: 2 }] },
  { method: "evm_mine", params: [true], compare: "code", why: GETH_TEXT },
  {
    method: "anvil_setNextBlockTimestamp",
    params: [FAR + 21],
    compare: "differs",
    why: "equal to the head's: a block's timestamp must be above its parent's (geth, the engine API); anvil makes such a block",
    ours: { code: -32602 },
  },
  { method: "anvil_mine", params: [2, 100] },
  { method: "hardhat_mine", params: [] },
  { method: "anvil_mine", params: ["0x0"] },
  { method: "anvil_mine", params: ["abc"], compare: "code", why: GETH_TEXT },
  { method: "anvil_mine", params: [1, 2, 3], compare: "code", why: GETH_TEXT },
  { method: "eth_blockNumber" },
  {
    method: "evm_mine",
    params: [{ blocks: 2 }],
    compare: "differs",
    why: "an absent timestamp is no timestamp, as a null one is; anvil's parser wants the key",
    ours: { result: "0x0" },
  },
  {
    method: "anvil_mine",
    compare: "differs",
    why: "a call without `params` is a call with none (geth's envelope); anvil refuses it for anvil_mine",
    ours: { result: null },
  },
  // Mining modes (anvil here runs --no-mining, flashnode a long block time: both stopped first).
  { method: "anvil_getAutomine" },
  { method: "evm_setIntervalMining", params: [0] },
  { method: "anvil_getIntervalMining" },
  { method: "evm_setIntervalMining", params: [5] },
  { method: "anvil_getIntervalMining" },
  { method: "hardhat_getAutomine" },
  {
    method: "anvil_setIntervalMining",
    params: ["0x3"],
    compare: "differs",
    why: "a number as every dev method takes one (cast sends bare numbers, Hardhat hex strings); anvil's parser wants a JSON number here",
    ours: { result: null },
  },
  { method: "evm_setIntervalMining", params: [-1], compare: "code", why: GETH_TEXT },
  { method: "evm_setAutomine", params: [true] },
  { method: "anvil_getAutomine" },
  { method: "anvil_getIntervalMining" },
  { method: "anvil_setAutomine", params: [false] },
  { method: "anvil_getAutomine" },
  { method: "anvil_getIntervalMining" },
  { method: "evm_setAutomine", params: ["x"], compare: "code", why: GETH_TEXT },
  { method: "evm_setAutomine", params: [], compare: "code", why: GETH_TEXT },
  // The next block's base fee, a dropped transaction.
  { method: "anvil_setNextBlockBaseFeePerGas", params: ["0x1"] },
  { method: "hardhat_setNextBlockBaseFeePerGas", params: [1000] },
  { method: "anvil_setNextBlockBaseFeePerGas", params: ["abc"], compare: "code", why: GETH_TEXT },
  { method: "anvil_dropTransaction", params: [WORD5] },
  { method: "hardhat_dropTransaction", params: [WORD5] },
  { method: "anvil_dropTransaction", params: ["0x01"], compare: "code", why: GETH_TEXT },
  // What the node is.
  {
    method: "anvil_nodeInfo",
    compare: "type",
    why: "the same fields; the values are each chain's (block, hardfork, fees; flashnode's pool order is arrival: fifo)",
  },
  {
    method: "anvil_metadata",
    compare: "type",
    why: "the same fields; the values are each node's (client, instance id, head, snapshots)",
  },
  { method: "hardhat_metadata", compare: "type", why: "as anvil_metadata" },
  { method: "anvil_metadata", params: [1], compare: "code", why: GETH_TEXT },
  // State dumps (the formats are checked both ways in test/e2e/devStateFiles.test.ts).
  { method: "anvil_dumpState", compare: "type", why: "hex of gzipped JSON: each chain's state" },
  { method: "anvil_dumpState", params: [true], compare: "type", why: "as without the flag" },
  { method: "anvil_dumpState", params: ["x"], compare: "code", why: GETH_TEXT },
  {
    method: "anvil_loadState",
    params: ["0x00"],
    compare: "differs",
    why: "anvil's code and text, then what was wrong (here: not JSON)",
    ours: { code: -32602 },
  },
  { method: "anvil_loadState", params: [], compare: "code", why: GETH_TEXT },
  // An unsigned transaction runs as its `from`'s, whoever that is.
  { method: "eth_sendUnsignedTransaction", params: [{ to: A1, value: "0x1" }] },
  { method: "eth_sendUnsignedTransaction", params: [], compare: "code", why: GETH_TEXT },
  {
    method: "eth_sendUnsignedTransaction",
    params: [{ from: NOBODY, to: A1, value: "0x1" }],
    compare: "differs",
    why: "the pool's refusals are geth's (-32000 insufficient funds for gas * price + value: …), as for eth_sendRawTransaction",
    ours: { code: -32000 },
  },
  {
    method: "eth_sendUnsignedTransaction",
    params: [{ from: Y, to: A1, value: "0x1" }],
    compare: "type",
    why: "a hash: anvil hashes an impersonated transaction with its sender appended, flashnode the placeholder-signed encoding (one encoding everywhere)",
  },
];

type Answer = { result?: unknown; error?: { code: number; message: string } };

let anvil: { child: ChildProcess; url: string } | undefined;
let node: DevNode;

async function call(url: string, method: string, params: unknown[] | undefined): Promise<Answer> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, ...(params ? { params } : {}) }),
  });
  return (await res.json()) as Answer;
}

const available = existsSync(ANVIL);

before(async () => {
  if (!available) return;
  anvil = await startAnvil();
  node = await startTestDevNode({ blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
  await pollUntil(
    () => call(node.dedicatedUrl, "eth_getBlockByNumber", ["pending", false]),
    (a) => /^0x0+$/.test((a.result as { hash: string }).hash),
  );
});
after(async () => {
  await stopChild(anvil?.child);
  await node?.close();
});

test("dev methods answer as anvil does, call by call", {
  skip: available ? false : "anvil binary not installed",
}, async () => {
  const problems: string[] = [];
  for (const [i, row] of ROWS.entries()) {
    const theirs = await call(anvil!.url, row.method, row.params);
    const ours = await call(node.dedicatedUrl, row.method, row.params);
    const label = `row ${i} ${row.method}(${JSON.stringify(row.params ?? [])})`;
    const show = `anvil ${JSON.stringify(theirs)} / flashnode ${JSON.stringify(ours)}`;
    const compare = row.compare ?? "same";
    if (compare === "same") {
      if (
        JSON.stringify(theirs.result) !== JSON.stringify(ours.result) ||
        JSON.stringify(theirs.error) !== JSON.stringify(ours.error)
      )
        problems.push(`${label}: ${show}`);
    } else if (compare === "code") {
      if (theirs.error === undefined || ours.error?.code !== theirs.error.code)
        problems.push(`${label}: want the same error code: ${show}`);
      else if (
        !ours.error.message.startsWith("invalid argument") &&
        !/missing value|too many arguments|non-array/.test(ours.error.message)
      )
        problems.push(`${label}: want geth's argument text: ${show}`);
    } else if (compare === "type") {
      if (
        theirs.error !== undefined ||
        ours.error !== undefined ||
        typeof theirs.result !== typeof ours.result
      )
        problems.push(`${label}: want results of one type: ${show}`);
    } else {
      const want = row.ours!;
      const got =
        "code" in want
          ? ours.error?.code === want.code
          : JSON.stringify(ours.result) === JSON.stringify(want.result);
      if (!got) problems.push(`${label}: want ${JSON.stringify(want)} (${row.why}): ${show}`);
      if (JSON.stringify(theirs) === JSON.stringify(ours))
        problems.push(`${label}: listed as differing, but answers alike: ${show}`);
    }
    if (compare !== "same" && row.why === undefined) problems.push(`${label}: no reason given`);
  }
  assert.deepEqual(problems, []);
});

/** The keys of an answer, nested objects' too (values are each node's). */
function shape(v: unknown): unknown {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return typeof v;
  return Object.fromEntries(
    Object.entries(v)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, x]) => [k, shape(x)]),
  );
}

test("anvil_nodeInfo and anvil_metadata have anvil's fields", {
  skip: available ? false : "anvil binary not installed",
}, async () => {
  for (const method of ["anvil_nodeInfo", "anvil_metadata"]) {
    const theirs = (await call(anvil!.url, method, [])).result as Record<string, unknown>;
    const ours = (await call(node.dedicatedUrl, method, [])).result as Record<string, unknown>;
    // anvil's commit sha is a string, ours null (a build without one): the keys still match.
    assert.deepEqual(Object.keys(shape(ours) as object), Object.keys(shape(theirs) as object));
    if (method === "anvil_nodeInfo") assert.deepEqual(shape(ours), shape(theirs));
  }
});
