// Rows of LMDB's `slots` table as of the head, kept in memory. A row holds the slot's current
// value and its newest history (slotRow.ts), so it answers a `latest` read and nearly every read of
// a recent block. Otherwise each is one B-tree lookup (~1 µs through lmdb-js at 10k blocks, more
// as the table grows: at 1M blocks it is one B-tree level deeper and its pages are spread over
// hundreds of MB, a cache miss per level). Direct-mapped: a fixed number of entries, a new key
// replaces the one in its place, so nothing needs evicting; rows are kept up to a byte budget.
//
// Validity: an entry holds what the slot's row was in the read snapshot of one head (number and
// hash). Blocks are written atomically with the head, so a snapshot with the same head has the
// same rows; a different head (a new block, a refreshed reader, a rewound chain) starts a new
// epoch and every older entry misses.

const ENTRIES = 1 << 16;
const MASK = ENTRIES - 1;
/** Address (20 bytes) + slot (32 bytes), as in the `slots` table. */
const KEY_LENGTH = 52;
/** Row bytes kept at most (a row is ~40 to ~1,900 bytes; most are under 200). */
export const SLOT_ROW_CACHE_BYTES = 32 * 1024 * 1024;

/** A row as read: its own copy, or NO_ROW for a slot never written. */
export const NO_ROW = new Uint8Array(0);

type Entry = {
  readonly key: Uint8Array;
  row: Uint8Array;
  /** The current value, derived from the row on first use. */
  value: Uint8Array | undefined;
  epoch: number;
};

function indexOf(key: Uint8Array): number {
  // The slot's low bytes vary most (sequential slots, hashed mapping slots alike); the address
  // bytes spread contracts apart. Collisions only cost a read from LMDB.
  const low = key[51]! | (key[50]! << 8) | (key[49]! << 16) | (key[48]! << 24);
  const mid = key[43]! | (key[38]! << 8) | (key[33]! << 16) | (key[22]! << 24);
  const addr = key[19]! | (key[13]! << 8) | (key[7]! << 16) | (key[1]! << 24);
  return (low ^ Math.imul(mid, 0x9e3779b1) ^ Math.imul(addr, 0x85ebca6b)) & MASK;
}

function sameKey(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = KEY_LENGTH - 1; i >= 0; i--) if (a[i] !== b[i]) return false;
  return true;
}

export class SlotRowCache {
  private readonly entries: (Entry | undefined)[] = new Array(ENTRIES).fill(undefined);
  private epoch = 0;
  private bytes = 0;
  private headNumber = -1;
  private headHash: Uint8Array | undefined;
  hits = 0;
  misses = 0;

  /** Starts a new epoch unless the head is the one the entries were read at. */
  atHead(number: number, hash: Uint8Array | undefined): void {
    if (number === this.headNumber && hash !== undefined && this.headHash !== undefined) {
      if (sameHash(hash, this.headHash)) return;
    }
    this.epoch++;
    this.headNumber = number;
    this.headHash = hash === undefined ? undefined : copyOf(hash, hash.length);
  }

  constructor(private readonly maxBytes = SLOT_ROW_CACHE_BYTES) {}

  /**
   * The row of `key` (52 bytes) in the current epoch, reading it with `read` on a miss; `read`
   * must return an array of its own (not a view into LMDB's buffer), or NO_ROW. The returned
   * array is shared: callers must not modify it.
   */
  row(key: Uint8Array, read: (key: Uint8Array) => Uint8Array): Uint8Array {
    return this.entry(key, read).row;
  }

  /** The slot's current value, derived from its row with `deriveValue` once per entry. */
  value(
    key: Uint8Array,
    read: (key: Uint8Array) => Uint8Array,
    deriveValue: (row: Uint8Array) => Uint8Array,
  ): Uint8Array {
    const e = this.entry(key, read);
    if (e.value === undefined) e.value = deriveValue(e.row);
    return e.value;
  }

  private entry(key: Uint8Array, read: (key: Uint8Array) => Uint8Array): Entry {
    const i = indexOf(key);
    const e = this.entries[i];
    if (e !== undefined && e.epoch === this.epoch && sameKey(e.key, key)) {
      this.hits++;
      return e;
    }
    this.misses++;
    const row = read(key);
    // No head to tie the entry to, or no room: answered, not kept.
    const freed = e === undefined ? 0 : e.row.length;
    if (
      this.headHash === undefined ||
      this.maxBytes === 0 ||
      this.bytes - freed + row.length > this.maxBytes
    )
      return { key, row, value: undefined, epoch: -1 };
    this.bytes += row.length - freed;
    if (e !== undefined) {
      e.key.set(key.subarray(0, KEY_LENGTH));
      e.row = row;
      e.value = undefined;
      e.epoch = this.epoch;
      return e;
    }
    const entry = {
      key: new Uint8Array(key.subarray(0, KEY_LENGTH)),
      row,
      value: undefined,
      epoch: this.epoch,
    };
    this.entries[i] = entry;
    return entry;
  }
}

/**
 * The first `length` bytes, copied. Not `new Uint8Array(x)`, nor a Buffer's slice(): lmdb-js
 * answers getFast with its 16 MiB read buffer whose own `length` property is the value's size
 * (the first copies all 16 MiB, the second is a view that the next read overwrites).
 */
function copyOf(bytes: Uint8Array, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = bytes[i]!;
  return out;
}

function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
