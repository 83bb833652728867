// The result guard's workload and record (test/e2e/execGolden.test.ts): a chain made byte for byte
// the same on every run — a fixed genesis (its timestamp too), fixed keys, each block's timestamp
// set (evm_setNextBlockTimestamp) and its transactions sent one at a time (so their order is the
// order sent) — of the bench's workloads on Uniswap V2 and V3 (bench/lib), with transactions that
// revert; and what a block's execution decided: the block, its receipts, a sample of storage
// slots, balances and nonces.
import type { Hex } from "viem";
import { concat, keccak256 } from "viem";
import { WorkloadSigner } from "../../bench/lib/execWorkload.ts";
import { rpc } from "../../bench/lib/followPhase.ts";
import { postJson } from "../../bench/lib/http.ts";
import { receiptsOf, sendRaw, TxSigner, txHash } from "../../bench/lib/txSigner.ts";
import { signUniswapSetup, type UniswapDeployment } from "../../bench/lib/uniswapSetup.ts";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { DEFAULT_DEV_L1, devL1Values } from "../../src/chain/op/l1Info.ts";
import { opPredeploys } from "../../src/chain/op/predeploys.ts";
import { hexToBytes } from "../../src/util/hex.ts";

export type ChainKind = "ethereum" | "op";
export const GENESIS_TIMESTAMP = 1_700_000_000n;
export const GOLDEN_GAS_LIMIT = 300_000_000n;
/** Account 0 deploys; 1..SENDERS send the workloads. */
const SENDERS = 3;

export async function goldenGenesis(kind: ChainKind): Promise<Record<string, unknown>> {
  const accounts = devAccounts(SENDERS + 1);
  return devGenesis({
    chainId: 31337n,
    fork: "osaka",
    accounts,
    balanceWei: 10_000n * 10n ** 18n,
    gasLimit: GOLDEN_GAS_LIMIT,
    timestamp: GENESIS_TIMESTAMP,
    ...(kind === "op"
      ? {
          op: await opPredeploys(
            devL1Values(DEFAULT_DEV_L1, GENESIS_TIMESTAMP),
            hexToBytes(accounts[0]!.address),
          ),
        }
      : {}),
  });
}

/** A block of the workload: its transactions, and those that are meant to fail. */
type PlannedBlock = { readonly raws: readonly Hex[]; readonly failing: ReadonlySet<Hex> };

/** The workload, signed: set-up (3 blocks), then transfers, swaps, chains, a mix, an empty block. */
export async function goldenBlocks(): Promise<{
  blocks: PlannedBlock[];
  deployment: UniswapDeployment;
}> {
  const signer = new TxSigner(31337, SENDERS + 1);
  // Narrow V3 positions only where the swaps take the price (±240 ticks): a smaller record.
  const setup = await signUniswapSetup(
    signer,
    Array.from({ length: SENDERS }, (_, i) => i + 1),
    { narrowReach: 240 },
  );
  const w = new WorkloadSigner(signer, setup.deployment);
  const plain = (raws: readonly Hex[]): PlannedBlock => ({ raws, failing: new Set() });
  const withFailing = async (raws: Hex[], kinds: Parameters<WorkloadSigner["failing"]>[0][]) => {
    const failing = new Set<Hex>();
    for (const k of kinds) {
      const raw = await w.failing(k);
      failing.add(txHash(raw));
      raws.push(raw);
    }
    return { raws, failing };
  };
  const blocks: PlannedBlock[] = setup.blocks.map(plain);
  blocks.push(
    await withFailing(
      [...(await w.makeWorkload("eth", 4)), ...(await w.makeWorkload("erc20", 4))],
      ["balance"],
    ),
  );
  blocks.push(await withFailing(await w.makeWorkload("v2", 6), ["slippage"]));
  blocks.push(await withFailing(await w.makeWorkload("v3", 6), ["deadline", "outOfGas"]));
  blocks.push(plain(await w.makeWorkload("chain", 4)));
  blocks.push(plain(await w.makeWorkload("mixed", 10)));
  blocks.push(plain([]));
  return { blocks, deployment: setup.deployment };
}

/** Polls until `hash` has a receipt (dev's receipts answer at pre-confirmation). */
async function preconfirmed(url: string, hash: Hex): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await receiptsOf(url, [hash]))[0] === null) {
    if (Date.now() > deadline) throw new Error(`${hash}: not pre-confirmed within 30 s`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/**
 * Runs the planned blocks on a dev node that seals only on evm_mine: block k (from 1) at
 * GENESIS_TIMESTAMP + 12k, its transactions sent one at a time, then mined; each is checked to
 * be in it, and to have succeeded unless meant to fail.
 */
export async function runGoldenWorkload(url: string, blocks: readonly PlannedBlock[]) {
  for (const [i, block] of blocks.entries()) {
    const timestamp = GENESIS_TIMESTAMP + 12n * BigInt(i + 1);
    await rpc(url, "evm_setNextBlockTimestamp", [`0x${timestamp.toString(16)}`]);
    // One at a time, each pre-confirmed before the next is sent: the pool never holds two, so
    // the block's order is the order sent whatever the flashblocks' timing. (With several
    // waiting, a flashblock's time budget running out puts the rest back without their arrival
    // order: the order would depend on the machine's speed.)
    for (const raw of block.raws) {
      await sendRaw(url, [raw]);
      await preconfirmed(url, txHash(raw));
    }
    await rpc(url, "evm_mine");
    const hashes = block.raws.map(txHash);
    const receipts = await receiptsOf(url, hashes);
    for (const [k, r] of receipts.entries()) {
      const hash = hashes[k]!;
      if (r === null) throw new Error(`block ${i + 1}: ${hash} not mined`);
      const failed = r.status !== "0x1";
      if (failed !== block.failing.has(hash))
        throw new Error(`block ${i + 1}: ${hash} ${failed ? "failed" : "succeeded"} unexpectedly`);
    }
  }
}

/** The storage slots sampled at every block: pools', pairs' and tokens' state. */
function sampledSlots(u: UniswapDeployment, holders: readonly Hex[]): [Hex, Hex][] {
  const word = (n: bigint | number) =>
    `0x${BigInt.asUintN(256, BigInt(n)).toString(16).padStart(64, "0")}` as Hex;
  // A mapping's entry: keccak256(key as a word ‖ the mapping's slot); an int24 key is
  // sign-extended, an address zero-padded.
  const entry = (key: bigint, slot: number) => BigInt(keccak256(concat([word(key), word(slot)])));
  const out: [Hex, Hex][] = [];
  for (const t of u.tokens.slice(0, 2)) {
    out.push([t, word(0)]); // totalSupply
    // balanceOf (slot 1 of V2's ERC-20)
    for (const h of [...holders, u.v2Pairs[0], u.v3Pools[0]])
      out.push([t, word(entry(BigInt(h), 1))]);
  }
  // V2 pair: totalSupply, then reserves and timestamp, both price accumulators, kLast, lock.
  for (const slot of [0, 8, 9, 10, 11, 12]) out.push([u.v2Pairs[0], word(slot)]);
  // V3 pool: slot0, both fee growths, protocol fees, liquidity, the first observation, and the
  // ticks around the price (their liquidity and fee growth outside).
  for (const slot of [0, 1, 2, 3, 4, 8]) out.push([u.v3Pools[0], word(slot)]);
  for (const tick of [-240, -120, 0, 120, 240]) {
    const base = entry(BigInt(tick), 5);
    for (let k = 0n; k < 3n; k++) out.push([u.v3Pools[0], word(base + k)]);
  }
  return out;
}

/** Fee recipients of an OP-stack chain (zero elsewhere): their balances are results too. */
const FEE_VAULTS: readonly Hex[] = [
  "0x4200000000000000000000000000000000000011",
  "0x4200000000000000000000000000000000000019",
  "0x420000000000000000000000000000000000001a",
  "0x420000000000000000000000000000000000001b",
];

export type BlockRecord = {
  readonly block: number;
  readonly header: Record<string, unknown>;
  readonly receipts: unknown[];
  readonly storage: Record<string, string>;
  readonly accounts: Record<string, { balance: string; nonce: string }>;
};

async function batch(url: string, calls: [string, unknown[]][]): Promise<unknown[]> {
  const body = calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
  const answers = JSON.parse(await postJson(url, JSON.stringify(body))) as {
    id: number;
    result?: unknown;
    error?: { message: string };
  }[];
  const out: unknown[] = new Array(calls.length);
  for (const a of answers) {
    if (a.error !== undefined) throw new Error(`${calls[a.id]![0]}: ${a.error.message}`);
    out[a.id] = a.result;
  }
  return out;
}

/** Every block from genesis to the head, as the node serves it. */
export async function recordChain(url: string, u: UniswapDeployment): Promise<BlockRecord[]> {
  const accounts = devAccounts(SENDERS + 1).map((a) => a.address as Hex);
  const slots = sampledSlots(u, accounts);
  const head = Number(await rpc<string>(url, "eth_blockNumber"));
  const out: BlockRecord[] = [];
  for (let n = 0; n <= head; n++) {
    const tag = `0x${n.toString(16)}`;
    const header = await rpc<Record<string, unknown>>(url, "eth_getBlockByNumber", [tag, false]);
    const receipts = await rpc<unknown[]>(url, "eth_getBlockReceipts", [tag]);
    const watched = [...accounts, header.miner as Hex, ...FEE_VAULTS];
    const values = await batch(url, [
      ...slots.map(([a, s]): [string, unknown[]] => ["eth_getStorageAt", [a, s, tag]]),
      ...watched.flatMap((a): [string, unknown[]][] => [
        ["eth_getBalance", [a, tag]],
        ["eth_getTransactionCount", [a, tag]],
      ]),
    ]);
    const storage: Record<string, string> = {};
    for (const [i, [a, s]] of slots.entries()) storage[`${a}:${s}`] = values[i] as string;
    const balances: BlockRecord["accounts"] = {};
    for (const [i, a] of watched.entries())
      balances[a.toLowerCase()] = {
        balance: values[slots.length + 2 * i] as string,
        nonce: values[slots.length + 2 * i + 1] as string,
      };
    out.push({ block: n, header, receipts, storage, accounts: balances });
  }
  return out;
}

/** The first place `actual` differs from `expected`, as a path and both values; none: undefined. */
export function firstDifference(expected: unknown, actual: unknown, path = ""): string | undefined {
  if (expected === actual) return undefined;
  const bothObjects =
    typeof expected === "object" &&
    typeof actual === "object" &&
    expected !== null &&
    actual !== null &&
    Array.isArray(expected) === Array.isArray(actual);
  if (!bothObjects)
    return `${path || "(root)"}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
  const e = expected as Record<string, unknown>;
  const a = actual as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(e), ...Object.keys(a)])];
  for (const k of keys) {
    const sub = Array.isArray(expected) ? `${path}[${k}]` : `${path}.${k}`;
    if (!(k in a)) return `${sub}: expected ${JSON.stringify(e[k])}, missing`;
    if (!(k in e)) return `${sub}: not expected, got ${JSON.stringify(a[k])}`;
    const d = firstDifference(e[k], a[k], sub);
    if (d !== undefined) return d;
  }
  return undefined;
}
