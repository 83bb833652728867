// Storage values at the head, kept in memory in front of LMDB's `slots` table. A read at or above
// the head is otherwise one B-tree lookup (~1 µs through lmdb-js); a batch of reads of the same
// contract pays it per call. Direct-mapped: a fixed number of entries, a new key replaces the one
// in its place, so memory is bounded (ENTRIES × ~150 bytes) and nothing needs evicting.
//
// Validity: an entry holds what the slot was in the read snapshot of one head (number and hash).
// Blocks are written atomically with the head, so a snapshot with the same head has the same
// storage; a different head (a new block, a refreshed reader, a rewound chain) starts a new epoch
// and every older entry misses.

const ENTRIES = 1 << 16;
const MASK = ENTRIES - 1;
/** Address (20 bytes) + slot (32 bytes), as in the `slots` table. */
const KEY_LENGTH = 52;

type Entry = { readonly key: Uint8Array; value: Uint8Array; epoch: number };

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

export class HeadStorageCache {
  private readonly entries: (Entry | undefined)[] = new Array(ENTRIES).fill(undefined);
  private epoch = 0;
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

  /**
   * The value of `key` (52 bytes) in the current epoch, reading it with `read` on a miss; `read`
   * must return an array of its own (not a view into LMDB's buffer). The returned array is
   * shared: callers must not modify it.
   */
  get(key: Uint8Array, read: (key: Uint8Array) => Uint8Array): Uint8Array {
    const i = indexOf(key);
    const e = this.entries[i];
    if (e !== undefined && e.epoch === this.epoch && sameKey(e.key, key)) {
      this.hits++;
      return e.value;
    }
    this.misses++;
    const value = read(key);
    if (this.headHash === undefined) return value; // no head: nothing to tie the entry to
    if (e !== undefined) {
      e.key.set(key.subarray(0, KEY_LENGTH));
      e.value = value;
      e.epoch = this.epoch;
    } else
      this.entries[i] = {
        key: new Uint8Array(key.subarray(0, KEY_LENGTH)),
        value,
        epoch: this.epoch,
      };
    return value;
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
