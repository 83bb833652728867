// A slot's row in the `slots` table: its current value and its newest history shard, so that one
// point read answers both "what is it now" and "which blocks changed it lately".
// Layout: flags ‖ value (leading zeros trimmed; empty = zero) ‖ shard (historyShard.ts). The
// flags byte holds the value's length (0..32) and, in its top bit, whether older full shards
// exist in storageHistoryIndex: without them a read needs no seek there.

const OLDER_SHARDS = 0x80;
const LENGTH = 0x3f;

function valueLength(row: Uint8Array): number {
  return row[0]! & LENGTH;
}

/** The current value: a copy (the row may be LMDB's reused read buffer). */
export function slotRowValue(row: Uint8Array): Uint8Array {
  return row.slice(1, 1 + valueLength(row));
}

/** Whether the current value is zero (the row stays for its history). */
export function slotRowIsZero(row: Uint8Array): boolean {
  return valueLength(row) === 0;
}

/** The newest history shard, as a view into the row. */
export function slotRowShard(row: Uint8Array): Uint8Array {
  return row.subarray(1 + valueLength(row));
}

/** Whether full shards older than the row's own are in storageHistoryIndex. */
export function slotRowHasOlderShards(row: Uint8Array): boolean {
  return (row[0]! & OLDER_SHARDS) !== 0;
}

export function encodeSlotRow(
  value: Uint8Array,
  shard: Uint8Array,
  hasOlderShards: boolean,
): Uint8Array {
  const out = new Uint8Array(1 + value.length + shard.length);
  out[0] = value.length | (hasOlderShards ? OLDER_SHARDS : 0);
  out.set(value, 1);
  out.set(shard, 1 + value.length);
  return out;
}
