// eth_getLogs at scale: builds a synthetic archive of --blocks blocks through the real block-write
// path (ChainStore.writeBlock, which also writes the log index), each block with --txs-per-block
// transactions of one or two logs from a population of --contracts emitters, one of which (the
// "target") emits in about 1% of blocks. Then times queries through the RPC layer's log query
// (no HTTP): one address over the whole range, that address and a topic, a topic alone, and a
// query with no criteria over 1,000 blocks; and, for scale, one pass over every block's receipts,
// which is what the address query would cost without the index. See docs/benchmarks.md.
// Run: npm run bench:logs [-- --blocks 100000 --txs-per-block 10 --contracts 1000]
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { chainSpecFromGenesis } from "../src/chain/genesis.ts";
import type { Log, ReceiptRecord } from "../src/chain/types.ts";
import { createBackend } from "../src/node/backendFactory.ts";
import { queryLogs } from "../src/rpc/eth/logQuery.ts";
import { parseFilterCriteria } from "../src/rpc/filterCriteria.ts";
import { createChainStore } from "../src/store/chainStore.ts";
import { openKvEnv } from "../src/store/lmdb.ts";
import { keccak256 } from "../src/util/crypto.ts";
import { bytesToHex } from "../src/util/hex.ts";
import { rng } from "./scale/model.ts";

const { values } = parseArgs({
  options: {
    blocks: { type: "string", default: "100000" },
    "txs-per-block": { type: "string", default: "10" },
    contracts: { type: "string", default: "1000" },
    runs: { type: "string", default: "20" },
  },
});
const BLOCKS = Number(values.blocks);
const TXS = Number(values["txs-per-block"]);
const CONTRACTS = Number(values.contracts);
const RUNS = Number(values.runs);

const word = (tag: number, n: number) => {
  const out = new Uint8Array(32);
  new DataView(out.buffer).setUint32(24, tag);
  new DataView(out.buffer).setUint32(28, n);
  return out;
};
const address = (n: number) => word(0xc0de, n).slice(12);
const EVENTS = [1, 2, 3, 4, 5].map((e) => keccak256(word(0xe7e7, e)));
const TARGET = address(0);
const DATA = new Uint8Array(32);
const EMPTY_BLOOM = new Uint8Array(256);
const BODY_RLP = Uint8Array.of(0xc2, 0xc0, 0xc0);

const datadir = mkdtempSync(join(tmpdir(), "flashnode-logs-"));
const env = openKvEnv(datadir, { noSync: true });
const store = createChainStore(env);
const genesis = {
  config: {
    chainId: 1,
    londonBlock: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    terminalTotalDifficulty: 0,
  },
  alloc: {},
  gasLimit: "0x1c9c380",
  difficulty: "0x0",
  nonce: "0x0",
  timestamp: "0x0",
  extraData: "0x",
  mixHash: `0x${"00".repeat(32)}`,
  coinbase: `0x${"00".repeat(20)}`,
};
store.setChainConfig(JSON.stringify(genesis));
const random = rng(0x1095);
let targetLogs = 0;
let totalLogs = 0;

const t0 = performance.now();
let parent: Uint8Array = new Uint8Array(32);
for (let n = 0; n < BLOCKS; n++) {
  const headerRlp = new Uint8Array(64);
  headerRlp.set(parent, 0);
  new DataView(headerRlp.buffer).setUint32(32, n);
  const hash = keccak256(headerRlp);
  const receipts: ReceiptRecord[] = [];
  const targetHere = random() < 0.01;
  for (let i = 0; i < TXS; i++) {
    const logs: Log[] = [];
    const count = random() < 0.5 ? 1 : 2;
    for (let j = 0; j < count; j++) {
      const emitter =
        targetHere && i === 0 && j === 0 ? 0 : 1 + Math.floor(random() * (CONTRACTS - 1));
      if (emitter === 0) targetLogs++;
      logs.push({
        address: address(emitter),
        topics: [
          EVENTS[Math.floor(random() * EVENTS.length)]!,
          word(0xacc7, Math.floor(random() * 1e6)),
        ],
        data: DATA,
      });
    }
    totalLogs += logs.length;
    receipts.push({
      type: 2,
      status: 1,
      root: undefined,
      cumulativeGasUsed: 50_000n * BigInt(i + 1),
      gasUsed: 50_000n,
      effectiveGasPrice: 1_000_000_000n,
      from: address(900_000 + i),
      to: logs[0]!.address,
      contractAddress: undefined,
      transactionHash: keccak256(word(n, i)),
      logsBloom: EMPTY_BLOOM,
      logs,
      blobGasUsed: undefined,
      blobGasPrice: undefined,
    });
  }
  store.writeBlock({
    number: n,
    hash,
    headerRlp,
    bodyRlp: BODY_RLP,
    timestamp: 1_700_000_000n + BigInt(n) * 2n,
    transactionHashes: receipts.map((r) => r.transactionHash),
    receipts,
    accountChanges: [],
    storageChanges: [],
    code: new Map(),
    trieNodes: new Map(),
  });
  parent = hash;
  if (n % 10_000 === 0 && n > 0) await new Promise((r) => setImmediate(r));
}
const genSeconds = (performance.now() - t0) / 1000;
console.log(
  `generated ${BLOCKS.toLocaleString("en-US")} blocks, ${totalLogs.toLocaleString("en-US")} logs (target address: ${targetLogs} logs) in ${genSeconds.toFixed(1)} s; archive ${(env.sizeOnDisk() / 1024 ** 2).toFixed(0)} MiB (LMDB size on disk)`,
);
console.log(
  `log index: ${env.table("logAddresses").entryCount().toLocaleString("en-US")} address entries, ${env.table("logTopics").entryCount().toLocaleString("en-US")} topic entries`,
);

const spec = await chainSpecFromGenesis(genesis);
const backend = createBackend(spec, store);
const last = `0x${(BLOCKS - 1).toString(16)}`;

function time(label: string, filter: unknown, runs = RUNS): void {
  const criteria = parseFilterCriteria(filter);
  let found = 0;
  const ms: number[] = [];
  for (let i = 0; i < runs + 2; i++) {
    const t = performance.now();
    found = queryLogs(backend, criteria).length;
    if (i >= 2) ms.push(performance.now() - t); // two untimed warm-up runs
  }
  ms.sort((a, b) => a - b);
  const q = (p: number) => ms[Math.min(ms.length - 1, Math.floor(p * ms.length))]!.toFixed(2);
  console.log(`${label}: ${found} logs, p50 ${q(0.5)} ms, p90 ${q(0.9)} ms (${runs} runs)`);
}

const target = bytesToHex(TARGET);
time(`one address over ${BLOCKS.toLocaleString("en-US")} blocks`, {
  address: target,
  fromBlock: "0x0",
  toBlock: last,
});
time("the same address and one event topic", {
  address: target,
  fromBlock: "0x0",
  toBlock: last,
  topics: [bytesToHex(EVENTS[0]!)],
});
time("one second-position topic value (a rare one) over the whole range", {
  fromBlock: "0x0",
  toBlock: last,
  topics: [null, bytesToHex(word(0xacc7, 4242))],
});
time(
  "no criteria over the last 1,000 blocks",
  { fromBlock: `0x${(BLOCKS - 1000).toString(16)}`, toBlock: last },
  5,
);
// What the one-address query would read without the index: every block's receipts.
{
  const t = performance.now();
  let receipts = 0;
  for (let n = 0; n < BLOCKS; n++) {
    const hash = store.canonicalHash(n)!;
    receipts += store.receipts(n, hash)?.receipts.length ?? 0;
  }
  console.log(
    `one pass over every block's receipts (${receipts.toLocaleString("en-US")}): ${((performance.now() - t) / 1000).toFixed(2)} s`,
  );
}
await env.close();
