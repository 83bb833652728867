// How a state layer (pending/stateLayer.ts) lays out its memory: a header, three open-addressing
// hash tables of entry offsets (linear probing, at most half full), then fixed-size address and
// slot entries and variable-size code entries. Every entry keeps its key's hash, so a probe
// compares bytes only on a hash match and a merge never hashes again.

/** An address entry's bits: the entry sets the account. */
export const SETS_ACCOUNT = 1;
/** The account was removed (the entry's account is undefined). */
export const DELETED = 2;
export const HAS_CODE = 4;
/** The account's storage was cleared before this layer's slots were written. */
export const WIPED = 8;
/** Some slot of the account has an entry in this layer. */
export const HAS_SLOTS = 16;
export const ACCOUNT_BITS = SETS_ACCOUNT | DELETED | HAS_CODE;

// The header, in 32-bit words.
export const MAGIC = 0x31_6c_61_79; // "lay1"
export const HEADER_BYTES = 64;
export const H_MAGIC = 0;
export const H_ADDRESSES = 1;
export const H_SLOTS = 2;
export const H_CODES = 3;
export const H_ADDRESS_TABLE = 4;
export const H_ADDRESS_CAP = 5;
export const H_SLOT_TABLE = 6;
export const H_SLOT_CAP = 7;
export const H_CODE_TABLE = 8;
export const H_CODE_CAP = 9;
export const H_ADDRESS_ENTRIES = 10;
export const H_SLOT_ENTRIES = 11;
export const H_CODE_ENTRIES = 12;
export const H_CODE_END = 13;
export const H_SIZE = 14;

// An address entry: address, key hash, bits, then the account (32-byte nonce and balance, big
// endian, and the code hash).
export const A_HASH = 20;
export const A_FLAGS = 24;
export const A_NONCE = 32;
export const A_BALANCE = 64;
export const A_CODE_HASH = 96;
export const ADDRESS_ENTRY = 128;
// A slot entry: address, slot, key hash, value length, value (leading zeros trimmed).
export const S_SLOT = 20;
export const S_HASH = 52;
export const S_LENGTH = 56;
export const S_VALUE = 57;
export const SLOT_ENTRY = 92;
// A code entry: code hash, key hash, length (little endian), code (padded to 4 bytes).
export const C_HASH = 32;
export const C_LENGTH = 36;
export const C_CODE = 40;

function mix(h: number, b: Uint8Array, i: number): number {
  const w = b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24);
  const x = Math.imul(h ^ w, 0x9e3779b1);
  return (x << 15) | (x >>> 17);
}

/** Mixed, then cut to 30 bits: a small integer to V8, never a boxed number. */
function finish(h: number): number {
  let x = h ^ (h >>> 16);
  x = Math.imul(x, 0x85ebca6b);
  x ^= x >>> 13;
  x = Math.imul(x, 0xc2b2ae35);
  return (x ^ (x >>> 16)) & 0x3fff_ffff;
}

/** A key's hash: `length` bytes (a multiple of 4) of `b` from `at`, after `seed`. */
function hashOf(b: Uint8Array, at: number, length: number, seed: number): number {
  let h = seed;
  for (let i = at; i < at + length; i += 4) h = mix(h, b, i);
  return finish(h);
}

/** The hash of the address in 20 bytes of `b` from `at`. */
export function addressHash(b: Uint8Array, at = 0): number {
  return hashOf(b, at, 20, 0x2545f491);
}

/** A slot's hash continues its address's: the two are one key. */
export function slotHash(ofAddress: number, slot: Uint8Array, at = 0): number {
  return hashOf(slot, at, 32, ofAddress);
}

export function codeKeyHash(codeHash: Uint8Array, at = 0): number {
  return hashOf(codeHash, at, 32, 0x6a09e667);
}

/** Whether `length` bytes of `a` from `at` equal those of `b` from `from`. */
export function same(a: Uint8Array, at: number, b: Uint8Array, from: number, length: number) {
  for (let i = 0; i < length; i++) if (a[at + i] !== b[from + i]) return false;
  return true;
}

/** Slots are 32-byte words; a shorter key is the same word with its leading zeros dropped. */
export function word(slot: Uint8Array): Uint8Array {
  if (slot.length === 32) return slot;
  if (slot.length > 32) throw new RangeError(`a storage slot of ${slot.length} bytes`);
  const out = new Uint8Array(32);
  out.set(slot, 32 - slot.length);
  return out;
}

/** A table's size for `entries`: a power of two, at most half full. */
export function tableCapacity(entries: number): number {
  let cap = 8;
  while (cap < entries * 2) cap *= 2;
  return cap;
}

/** A 32-byte big-endian word; most nonces and balances take the short ways. */
export function readWord(view: DataView, at: number): bigint {
  const high = view.getUint32(at) | view.getUint32(at + 4) | view.getUint32(at + 8);
  if ((high | view.getUint32(at + 12)) === 0) {
    const a = view.getUint32(at + 16);
    const b = view.getUint32(at + 20);
    const c = view.getUint32(at + 24);
    if (a === 0 && b === 0 && c < 0x200000)
      return BigInt(c * 0x1_0000_0000 + view.getUint32(at + 28));
    return (view.getBigUint64(at + 16) << 64n) | view.getBigUint64(at + 24);
  }
  let v = 0n;
  for (let i = 0; i < 32; i += 8) v = (v << 64n) | view.getBigUint64(at + i);
  return v;
}

/** Writes a value below 2^256 as a 32-byte big-endian word into zeroed memory. */
export function writeWord(view: DataView, at: number, value: bigint): void {
  // Nonces and balances fit in 64 bits: one write, no intermediate bigints.
  if (value < 0x1_0000_0000_0000_0000n) {
    view.setBigUint64(at + 24, value);
    return;
  }
  let v = value;
  for (let i = 24; i >= 0 && v !== 0n; i -= 8) {
    view.setBigUint64(at + i, BigInt.asUintN(64, v));
    v >>= 64n;
  }
}
