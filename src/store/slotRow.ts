// A slot's row in the `slots` table: its current value, the values it had before its newest
// changes, and its newest history shard, so that one point read answers "what is it now", "which
// blocks changed it lately" and, for a block before one of its last RECENT changes, "what was it
// then" (most historical reads are of recent blocks).
// Layout: flags ‖ value ‖ count ‖ count × (length ‖ pre-value) ‖ shard (historyShard.ts).
// The flags byte holds the value's length (0..32) and, in its top bit, whether older full shards
// exist in storageHistoryIndex: without them a read needs no seek there. Values have leading
// zeros trimmed (empty = zero). The pre-values belong to the shard's last `count` numbers, in
// the same order: pre-value i is what the slot held before block shard[length - count + i]
// changed it (the same bytes as that block's entry in storageChanges).

import { copyBytes } from "../util/hex.ts";
import { shardLength } from "./historyShard.ts";

/** Pre-values kept in the row: a full row (8 × 33 + 1,536 + 34 bytes) stays under LMDB's ~2 KB
 * overflow threshold of a 4 KiB page, so a row is always one inline leaf node. */
export const RECENT = 8;
const OLDER_SHARDS = 0x80;
const LENGTH = 0x3f;

function valueLength(row: Uint8Array): number {
  return row[0]! & LENGTH;
}

/** The current value: a copy (the row may be LMDB's reused read buffer, see copyBytes). */
export function slotRowValue(row: Uint8Array): Uint8Array {
  return copyBytes(row, 1, 1 + valueLength(row));
}

/** Whether the current value is zero (the row stays for its history). */
export function slotRowIsZero(row: Uint8Array): boolean {
  return valueLength(row) === 0;
}

/** Whether full shards older than the row's own are in storageHistoryIndex. */
export function slotRowHasOlderShards(row: Uint8Array): boolean {
  return (row[0]! & OLDER_SHARDS) !== 0;
}

/** How many pre-values the row keeps (they belong to the shard's last numbers). */
export function slotRowRecentCount(row: Uint8Array): number {
  return row[1 + valueLength(row)]!;
}

/** Offset of the shard in the row: past the value and the pre-values. */
function shardOffset(row: Uint8Array): number {
  let o = 1 + valueLength(row);
  const count = row[o++]!;
  for (let i = 0; i < count; i++) o += 1 + row[o]!;
  return o;
}

/** The newest history shard, as a view into the row. */
export function slotRowShard(row: Uint8Array): Uint8Array {
  return row.subarray(shardOffset(row));
}

/** Pre-value `i` (0: the oldest kept): a copy. */
export function slotRowRecent(row: Uint8Array, i: number): Uint8Array {
  let o = 2 + valueLength(row);
  for (let k = 0; k < i; k++) o += 1 + row[o]!;
  return copyBytes(row, o + 1, o + 1 + row[o]!);
}

/** Every kept pre-value, oldest first, as views into the row. */
export function slotRowRecentValues(row: Uint8Array): Uint8Array[] {
  let o = 1 + valueLength(row);
  const count = row[o++]!;
  const out: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    out.push(row.subarray(o + 1, o + 1 + row[o]!));
    o += 1 + row[o]!;
  }
  return out;
}

export function encodeSlotRow(
  value: Uint8Array,
  recent: readonly Uint8Array[],
  shard: Uint8Array,
  hasOlderShards: boolean,
): Uint8Array {
  if (recent.length > Math.min(RECENT, shardLength(shard)))
    throw new Error(`a slot row keeps at most ${RECENT} pre-values, one per shard number`);
  let size = 2 + value.length + shard.length;
  for (const v of recent) size += 1 + v.length;
  const out = new Uint8Array(size);
  out[0] = value.length | (hasOlderShards ? OLDER_SHARDS : 0);
  out.set(value, 1);
  let o = 1 + value.length;
  out[o++] = recent.length;
  for (const v of recent) {
    out[o++] = v.length;
    out.set(v, o);
    o += v.length;
  }
  out.set(shard, o);
  return out;
}
