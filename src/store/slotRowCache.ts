// Rows of LMDB's `slots` table as of the head, kept in memory. A row holds the slot's current
// value and its newest history (slotRow.ts), so it answers a `latest` read and nearly every read of
// a recent block. Otherwise each is one B-tree lookup (~1 µs through lmdb-js at 10k blocks, more
// as the table grows: at 1M blocks it is one B-tree level deeper and its pages are spread over
// hundreds of MB, a cache miss per level). Direct-mapped: a fixed number of entries (up to 60%
// of the budget), a new key replaces the one in its place, so nothing needs evicting.
// Keys and rows live in arenas: a few large arrays, not millions of small objects for every
// garbage collection to trace.
//
// Validity: an entry holds what the slot's row was in the read snapshot of one head (number and
// hash). Blocks are written atomically with the head, so a snapshot with the same head has the
// same rows; a different head (a new block, a refreshed reader, a rewound chain) starts a new
// epoch and every older entry misses.

/** Address (20 bytes) + slot (32 bytes), as in the `slots` table. */
const KEY_LENGTH = 52;
/** Memory the cache may hold by default: its tables, the rows and their objects. */
export const SLOT_ROW_CACHE_BYTES = 64 * 1024 * 1024;
/**
 * Bytes of the row arena per entry: a row up to this long is copied into its entry's place. A
 * longer one (a slot changed often: up to ~1,900 bytes) goes into the long-row arena, filled
 * from its start in each head's epoch; rows that do not fit there are answered, not kept.
 */
const ARENA_ROW = 160;
/** Fixed bytes per entry: key, arena row, length, offset, epoch, the derived value's slot. */
const ENTRY_BYTES = KEY_LENGTH + ARENA_ROW + 4 + 4 + 4 + 8;
/** The entries' tables take at most this share of the budget; the long-row arena the rest. */
const TABLES_SHARE = 0.6;
/** lengths[i] of a slot never written. */
const NONE = -1;

/** A row as read: its own copy, or NO_ROW for a slot never written. */
export const NO_ROW = new Uint8Array(0);

/** The fixed part of a cache of `maxBytes`: its tables, whatever it holds. */
export function slotRowCacheTableBytes(maxBytes: number): number {
  return entriesFor(maxBytes) * ENTRY_BYTES;
}

function entriesFor(maxBytes: number): number {
  if (maxBytes === 0) return 1;
  let n = 1 << 8;
  while (n < 1 << 22 && 2 * n * ENTRY_BYTES <= maxBytes * TABLES_SHARE) n *= 2;
  return n;
}

export class SlotRowCache {
  /** Direct-mapped, in parallel arrays over arenas: no object per entry or row. */
  private readonly mask: number;
  private readonly keys: Uint8Array;
  private readonly arena: Uint8Array;
  /** A row's length (NONE: never written); offsets[i] >= 0 places it in the long-row arena. */
  private readonly lengths: Int32Array;
  private readonly offsets: Int32Array;
  private readonly longRows: Uint8Array;
  private longTop = 0;
  /** The current value, derived from the row on first use. */
  private readonly values: (Uint8Array | undefined)[];
  /** 0: empty; otherwise the epoch the entry was read in. */
  private readonly epochs: Int32Array;
  private epoch = 1;
  private headNumber = -1;
  private headHash: Uint8Array | undefined;
  hits = 0;
  misses = 0;

  /** `maxBytes` of memory at most (0 keeps nothing), tables and arenas together. */
  constructor(maxBytes = SLOT_ROW_CACHE_BYTES) {
    const n = entriesFor(maxBytes);
    this.mask = n - 1;
    this.keys = new Uint8Array(n * KEY_LENGTH);
    this.arena = new Uint8Array(n * ARENA_ROW);
    this.lengths = new Int32Array(n);
    this.offsets = new Int32Array(n);
    this.values = new Array(n).fill(undefined);
    this.epochs = new Int32Array(n);
    this.longRows = new Uint8Array(Math.max(0, maxBytes - n * ENTRY_BYTES));
    // Too small for its own tables: nothing is kept.
    if (maxBytes < n * ENTRY_BYTES) this.epoch = -1;
  }

  /** Starts a new epoch unless the head is the one the entries were read at. */
  atHead(number: number, hash: Uint8Array | undefined): void {
    if (number === this.headNumber && hash !== undefined && this.headHash !== undefined) {
      if (sameHash(hash, this.headHash)) return;
    }
    if (this.epoch > 0) this.epoch++;
    this.longTop = 0;
    this.headNumber = number;
    this.headHash = hash === undefined ? undefined : copyOf(hash, hash.length);
  }

  /**
   * The row of `key` (52 bytes) in the current epoch, reading it with `read` on a miss; `read`
   * must return an array of its own (not a view into LMDB's buffer), or NO_ROW. The returned
   * array may be a view into the cache: read it before the next call, never modify it.
   */
  row(key: Uint8Array, read: (key: Uint8Array) => Uint8Array): Uint8Array {
    const i = this.find(key);
    return i < 0 ? this.fill(key, read, ~i) : this.kept(i);
  }

  /** The slot's current value, derived from its row with `deriveValue` once per entry. */
  value(
    key: Uint8Array,
    read: (key: Uint8Array) => Uint8Array,
    deriveValue: (row: Uint8Array) => Uint8Array,
  ): Uint8Array {
    const i = this.find(key);
    if (i >= 0) {
      let v = this.values[i];
      if (v === undefined) {
        v = deriveValue(this.kept(i));
        this.values[i] = v;
      }
      return v;
    }
    const v = deriveValue(this.fill(key, read, ~i));
    // Kept only if the row was: a row that did not fit leaves another key's entry in its place.
    if (this.epochs[~i] === this.epoch && this.sameKey(~i, key)) this.values[~i] = v;
    return v;
  }

  /** The row kept in entry `i`. */
  private kept(i: number): Uint8Array {
    const length = this.lengths[i]!;
    if (length === NONE) return NO_ROW;
    const at = this.offsets[i]!;
    if (at >= 0) return this.longRows.subarray(at, at + length);
    const start = i * ARENA_ROW;
    return this.arena.subarray(start, start + length);
  }

  /** The entry holding `key` in this epoch (a hit), or ~its place (a miss). */
  private find(key: Uint8Array): number {
    const i = indexOf(key) & this.mask;
    if (this.epochs[i] === this.epoch && this.sameKey(i, key)) {
      this.hits++;
      return i;
    }
    this.misses++;
    return ~i;
  }

  /** Reads a missed row and keeps it in place `i` if there is room; returns the row. */
  private fill(key: Uint8Array, read: (key: Uint8Array) => Uint8Array, i: number): Uint8Array {
    const row = read(key);
    if (this.headHash === undefined || this.epoch < 0) return row;
    const length = row === NO_ROW ? NONE : row.length;
    let offset = -1;
    if (length > ARENA_ROW) {
      // A long row takes the arena's next bytes (a replaced one's stay until the next epoch).
      if (this.longTop + length > this.longRows.length) return row;
      offset = this.longTop;
      this.longRows.set(row, offset);
      this.longTop += length;
    } else if (length > 0) this.arena.set(row, i * ARENA_ROW);
    this.keys.set(key.subarray(0, KEY_LENGTH), i * KEY_LENGTH);
    this.lengths[i] = length;
    this.offsets[i] = offset;
    this.values[i] = undefined;
    this.epochs[i] = this.epoch;
    return row;
  }

  private sameKey(i: number, key: Uint8Array): boolean {
    const keys = this.keys;
    const at = i * KEY_LENGTH;
    for (let k = KEY_LENGTH - 1; k >= 0; k--) if (keys[at + k] !== key[k]) return false;
    return true;
  }
}

function indexOf(key: Uint8Array): number {
  // The slot's low bytes vary most (sequential slots, hashed mapping slots alike); the address
  // bytes spread contracts apart. Collisions only cost a read from LMDB.
  const low = key[51]! | (key[50]! << 8) | (key[49]! << 16) | (key[48]! << 24);
  const mid = key[43]! | (key[38]! << 8) | (key[33]! << 16) | (key[22]! << 24);
  const addr = key[19]! | (key[13]! << 8) | (key[7]! << 16) | (key[1]! << 24);
  return low ^ Math.imul(mid, 0x9e3779b1) ^ Math.imul(addr, 0x85ebca6b);
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
