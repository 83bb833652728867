// A storage slot's history index: the numbers of the blocks that changed it, ascending, in
// shards of at most SHARD_CAPACITY 6-byte big-endian numbers. A slot's newest shard is keyed
// address ‖ slot ‖ 2^64-1 (one point read finds it); a full shard is re-keyed by its highest
// number, so a seek for "first change after N" lands on the only shard that can hold it.
// 6 bytes per change (the pre-value lives once, in the block-ordered change set) instead of a
// 60-byte key per change: the index is a few bytes per change and its shards stay inline in
// LMDB's leaf pages (256 × 6 = 1,536 bytes, under the ~2 KB overflow threshold of a 4 KiB page).

export const SHARD_CAPACITY = 256;
const WIDTH = 6;

export function shardLength(shard: Uint8Array): number {
  return shard.length / WIDTH;
}

export function shardAt(shard: Uint8Array, i: number): number {
  const o = i * WIDTH;
  const hi = (shard[o]! << 8) | shard[o + 1]!;
  const lo =
    ((shard[o + 2]! << 24) | (shard[o + 3]! << 16) | (shard[o + 4]! << 8) | shard[o + 5]!) >>> 0;
  return hi * 0x1_0000_0000 + lo;
}

export function shardLast(shard: Uint8Array): number {
  return shardAt(shard, shardLength(shard) - 1);
}

/** The index of the first number in the shard greater than `block`; its length if none. */
export function shardIndexAfter(shard: Uint8Array, block: number): number {
  let lo = 0;
  let hi = shardLength(shard);
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (shardAt(shard, mid) > block) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

/** The first number in the shard greater than `block`, if any (binary search). */
export function shardFirstAfter(shard: Uint8Array, block: number): number | undefined {
  const i = shardIndexAfter(shard, block);
  return i < shardLength(shard) ? shardAt(shard, i) : undefined;
}

/** A new shard: `shard` (a copy is made; it may be LMDB's reused buffer) with `block` appended. */
export function shardAppend(shard: Uint8Array | undefined, block: number): Uint8Array {
  const length = shard === undefined ? 0 : shard.length;
  const out = new Uint8Array(length + WIDTH);
  if (shard !== undefined) out.set(shard, 0);
  const hi = Math.floor(block / 0x1_0000_0000);
  const lo = block >>> 0;
  out[length] = (hi >>> 8) & 0xff;
  out[length + 1] = hi & 0xff;
  out[length + 2] = lo >>> 24;
  out[length + 3] = (lo >>> 16) & 0xff;
  out[length + 4] = (lo >>> 8) & 0xff;
  out[length + 5] = lo & 0xff;
  return out;
}
