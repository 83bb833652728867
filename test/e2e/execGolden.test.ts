// The result guard of issue 31: making execution faster changes no result. A deterministic
// workload (bench/lib's Uniswap V2 and V3 set-up, ETH and ERC-20 transfers, V2 swaps, V3 swaps
// crossing ticks, multi-hop swap chains, a mix, transactions that revert or run out of gas) runs
// on `flashnode dev --ethereum` and on the OP-stack `dev`, each from a fixed genesis with every
// block's timestamp set, so the chain is the same byte for byte on every run. Every block — its
// header (hash, state root, receipts root, bloom, gas), its receipts, a sample of storage slots,
// balances and nonces at it — is compared with the golden file recorded from the code before the
// optimisations (test/golden/exec-<chain>.jsonl), block by block, and the first difference is
// printed. eth_getLogs of each block must also be its receipts' logs.
//
// Re-recording is only for a change meant to change results (a new fork's rules, a fixed bug):
//   npm run golden:exec    (FLASHNODE_RECORD_GOLDEN=1 on this file)
import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { after, before, test } from "node:test";
import { startDevChild } from "../../bench/lib/devChain.ts";
import { rpc } from "../../bench/lib/followPhase.ts";
import {
  type BlockRecord,
  type ChainKind,
  firstDifference,
  GOLDEN_GAS_LIMIT,
  goldenBlocks,
  goldenGenesis,
  recordChain,
  runGoldenWorkload,
} from "../utils/execGolden.ts";
import { tempDatadir } from "../utils/fixtures.ts";

const GOLDEN_DIR = resolve(import.meta.dirname, "../golden");
const RECORD = process.env.FLASHNODE_RECORD_GOLDEN === "1";
const KEY = "exec-golden-key-01";
/** keccak256("Swap(address,address,int256,int256,uint160,uint128,int24)"): V3's Swap event. */
const V3_SWAP = "0xc42079f94a6350d7e6235f29174924f928cc2ac818eb64fed8004e115fbcca67";

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) c.kill("SIGKILL");
});

const goldenFile = (kind: ChainKind) => join(GOLDEN_DIR, `exec-${kind}.jsonl`);

async function runChain(kind: ChainKind): Promise<BlockRecord[]> {
  const datadir = tempDatadir(`exec-golden-${kind}`);
  const genesisFile = join(datadir, "genesis.json");
  writeFileSync(genesisFile, JSON.stringify(await goldenGenesis(kind)));
  const { child, url } = await startDevChild(
    [
      "--genesis",
      genesisFile,
      ...(kind === "ethereum" ? ["--ethereum"] : []),
      "--gas-limit",
      String(GOLDEN_GAS_LIMIT),
      "--block-time",
      "3600s",
      "--flashblock-interval",
      "20ms",
      "--api-key",
      KEY,
      "--log-level",
      "warn",
    ],
    join(datadir, "chain"),
  );
  children.push(child);
  try {
    const endpoint = `${url}rpc/${KEY}`;
    const { blocks, deployment } = await goldenBlocks();
    await runGoldenWorkload(endpoint, blocks);
    const records = await recordChain(endpoint, deployment);
    // Each block's logs as eth_getLogs serves them are its receipts' logs.
    for (const r of records) {
      const tag = `0x${r.block.toString(16)}`;
      const logs = await rpc<unknown[]>(endpoint, "eth_getLogs", [
        { fromBlock: tag, toBlock: tag },
      ]);
      const fromReceipts = r.receipts.flatMap((x) => (x as { logs: unknown[] }).logs);
      assert.deepEqual(logs, fromReceipts, `${kind} block ${r.block}: eth_getLogs`);
    }
    return records;
  } finally {
    child.kill("SIGTERM");
  }
}

/** The V3 swaps of the workload's V3 block cross initialized ticks (multiples of 120 here). */
function assertCrossesTicks(records: readonly BlockRecord[]): void {
  const ticks = records[6]!.receipts.flatMap((r) =>
    (r as { logs: { topics: string[]; data: string }[] }).logs
      .filter((l) => l.topics[0] === V3_SWAP)
      .map((l) => Number(BigInt.asIntN(24, BigInt(`0x${l.data.slice(2 + 64 * 4, 2 + 64 * 5)}`)))),
  );
  assert.equal(ticks.length, 6, "six V3 swaps in block 6");
  let previous = 0;
  for (const t of ticks) {
    const crossed = Math.abs(Math.floor(t / 120) - Math.floor(previous / 120));
    assert.ok(crossed >= 1, `a swap from tick ${previous} to ${t} crossed no initialized tick`);
    previous = t;
  }
}

function compare(kind: ChainKind, actual: readonly BlockRecord[]): void {
  const file = goldenFile(kind);
  if (RECORD) {
    mkdirSync(GOLDEN_DIR, { recursive: true });
    writeFileSync(file, `${actual.map((r) => JSON.stringify(r)).join("\n")}\n`);
    console.log(`recorded ${actual.length} blocks to ${file}`);
    return;
  }
  const expected = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as BlockRecord);
  for (let i = 0; i < Math.max(expected.length, actual.length); i++) {
    // A block's hash follows from the rest of it: what made it differ is said first.
    const withoutHash = (r: BlockRecord | undefined) => {
      const { hash: _, ...header } = r?.header ?? {};
      return { ...r, header };
    };
    const d =
      firstDifference(withoutHash(expected[i]), withoutHash(actual[i]), `block ${i}`) ??
      firstDifference(expected[i], actual[i], `block ${i}`);
    if (d !== undefined) {
      // Kept after the test (a temporary datadir would be removed): to diff with the golden file.
      const saved = join(
        mkdtempSync(join(tmpdir(), "flashnode-exec-golden-")),
        `exec-${kind}.jsonl`,
      );
      writeFileSync(saved, `${actual.map((r) => JSON.stringify(r)).join("\n")}\n`);
      assert.fail(`${kind} chain differs from ${file} first at ${d} (this run's record: ${saved})`);
    }
  }
}

// Both chains at once (a node each): the test takes the time of the slower.
const KINDS = ["ethereum", "op"] as const;
let runs: Promise<PromiseSettledResult<BlockRecord[]>[]>;
before(() => {
  runs = Promise.allSettled(KINDS.map(runChain));
});

for (const [i, kind] of KINDS.entries())
  test(`${kind}: every block's header, receipts, logs and sampled state equal the golden file`, async () => {
    const run = (await runs)[i]!;
    if (run.status === "rejected") throw run.reason;
    const records = run.value;
    assert.equal(records.length, 10, "genesis and nine blocks");
    assertCrossesTicks(records);
    compare(kind, records);
  });
