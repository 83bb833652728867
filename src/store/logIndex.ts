// Which blocks hold logs of an address, or logs with a topic: eth_getLogs reads the receipts of
// those blocks only, so a query for one contract over a long range costs what it finds, not the
// range (the per-key block lists of reth and Erigon; geth scans header blooms instead). A topic is
// indexed whatever its position: the candidates are a superset, which the exact match on the
// receipts narrows.
import type { ReceiptRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { readU64, writeU64 } from "./keys.ts";
import type { KvTable } from "./lmdb.ts";

const EMPTY = new Uint8Array(0);

export type LogIndexTables = { readonly logAddresses: KvTable; readonly logTopics: KvTable };

function entryKey(prefix: Uint8Array, number: number): Uint8Array {
  const out = new Uint8Array(prefix.length + 8);
  out.set(prefix, 0);
  writeU64(out, prefix.length, number);
  return out;
}

/** Adds a block's log addresses and topics (each once per block); inside the block's write. */
export function indexBlockLogs(
  t: LogIndexTables,
  number: number,
  receipts: readonly ReceiptRecord[],
): void {
  const addresses = new Map<string, Uint8Array>();
  const topics = new Map<string, Uint8Array>();
  for (const r of receipts) {
    for (const log of r.logs) {
      addresses.set(bytesToUnprefixedHex(log.address), log.address);
      for (const topic of log.topics) topics.set(bytesToUnprefixedHex(topic), topic);
    }
  }
  for (const a of addresses.values()) t.logAddresses.put(entryKey(a, number), EMPTY);
  for (const topic of topics.values()) t.logTopics.put(entryKey(topic, number), EMPTY);
}

/**
 * Reading a candidate block's receipts costs about as much as scanning this many index keys
 * (measured with npm run bench:logs: ~180 µs a block, ~2.3 µs a key): a topic list longer than
 * this many times the candidates left is not worth scanning to narrow them further.
 */
const KEYS_PER_BLOCK_READ = 50;

/**
 * Ascending numbers in [from, to] of blocks indexed under any of `keys`; undefined when more
 * than `limit` keys would have to be scanned.
 */
function blocksUnder(
  table: KvTable,
  keys: readonly Uint8Array[],
  from: number,
  to: number,
  limit = Number.POSITIVE_INFINITY,
): number[] | undefined {
  const found = new Set<number>();
  let scanned = 0;
  for (const k of keys)
    for (const { key } of table.range(entryKey(k, from), entryKey(k, to + 1))) {
      if (++scanned > limit) return undefined;
      found.add(readU64(key, k.length));
    }
  return [...found].sort((a, b) => a - b);
}

function intersect(a: readonly number[], b: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i]! < b[j]!) i++;
    else if (a[i]! > b[j]!) j++;
    else {
      out.push(a[i]!);
      i++;
      j++;
    }
  }
  return out;
}

/**
 * Blocks in [from, to] that may hold a matching log: with an address of `addresses` (any when
 * undefined) and, per topic position, one of its topics (undefined: wildcard). Undefined when
 * nothing narrows the range (no addresses, no topics): every block is a candidate.
 */
export function logCandidateBlocks(
  t: LogIndexTables,
  from: number,
  to: number,
  addresses: readonly Uint8Array[] | undefined,
  topics: readonly (readonly Uint8Array[] | undefined)[],
): number[] | undefined {
  let candidates: number[] | undefined;
  const narrow = (blocks: number[] | undefined) => {
    if (blocks === undefined) return; // too long to be worth it: the receipts decide
    candidates = candidates === undefined ? blocks : intersect(candidates, blocks);
  };
  if (addresses !== undefined) narrow(blocksUnder(t.logAddresses, addresses, from, to));
  for (const position of topics) {
    if (position === undefined || candidates?.length === 0) continue;
    const limit =
      candidates === undefined ? Number.POSITIVE_INFINITY : candidates.length * KEYS_PER_BLOCK_READ;
    narrow(blocksUnder(t.logTopics, position, from, to, limit));
  }
  return candidates;
}
