// One flashblock's state diff (or a run of adjacent ones merged) laid out in one block of
// memory (pending/layerLayout.ts), written once by pending/layerWriter.ts, then only read. The
// memory is a SharedArrayBuffer: the thread that lays it out and its call worker read the same
// bytes (a layer crosses to the worker by reference), and a reader process is sent the bytes
// instead of the diff (pending/updateLayers.ts).
import type { AccountRecord } from "../chain/types.ts";
import {
  A_BALANCE,
  A_CODE_HASH,
  A_FLAGS,
  A_HASH,
  A_NONCE,
  ADDRESS_ENTRY,
  C_CODE,
  C_HASH,
  C_LENGTH,
  DELETED,
  H_ADDRESS_CAP,
  H_ADDRESS_ENTRIES,
  H_ADDRESS_TABLE,
  H_ADDRESSES,
  H_CODE_CAP,
  H_CODE_END,
  H_CODE_ENTRIES,
  H_CODE_TABLE,
  H_CODES,
  H_MAGIC,
  H_SIZE,
  H_SLOT_CAP,
  H_SLOT_ENTRIES,
  H_SLOT_TABLE,
  H_SLOTS,
  HAS_CODE,
  HEADER_BYTES,
  MAGIC,
  readWord,
  S_HASH,
  S_LENGTH,
  S_SLOT,
  S_VALUE,
  SLOT_ENTRY,
  same,
} from "./layerLayout.ts";

const EMPTY = new Uint8Array(0);

export class StateLayer {
  /** The layer's memory; never written once the layer exists. */
  readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly words: Uint32Array;
  private readonly addressTable: Uint32Array;
  private readonly slotTable: Uint32Array;
  private readonly codeTable: Uint32Array;

  private constructor(readonly buffer: ArrayBufferLike) {
    if (buffer.byteLength < HEADER_BYTES || buffer.byteLength % 4 !== 0)
      throw new TypeError("not a state layer");
    this.bytes = new Uint8Array(buffer);
    this.view = new DataView(buffer);
    const h = new Uint32Array(buffer);
    this.words = h;
    if (h[H_MAGIC] !== MAGIC || h[H_SIZE] !== buffer.byteLength)
      throw new TypeError("not a state layer");
    const table = (at: number, cap: number) => new Uint32Array(buffer, h[at]!, h[cap]!);
    this.addressTable = table(H_ADDRESS_TABLE, H_ADDRESS_CAP);
    this.slotTable = table(H_SLOT_TABLE, H_SLOT_CAP);
    this.codeTable = table(H_CODE_TABLE, H_CODE_CAP);
  }

  /** A layer over memory laid out by layerWriter.ts (shared, or a copy's). */
  static wrap(buffer: ArrayBufferLike): StateLayer {
    return new StateLayer(buffer);
  }

  /** A layer from its bytes as they crossed a process boundary, copied into shared memory. */
  static fromBytes(bytes: Uint8Array): StateLayer {
    const shared = new SharedArrayBuffer(bytes.byteLength);
    new Uint8Array(shared).set(bytes);
    return new StateLayer(shared);
  }

  get addressCount(): number {
    return this.words[H_ADDRESSES]!;
  }
  get slotCount(): number {
    return this.words[H_SLOTS]!;
  }
  get codeCount(): number {
    return this.words[H_CODES]!;
  }
  /** Bytes its code entries take. */
  get codeBytes(): number {
    return this.words[H_CODE_END]! - this.words[H_CODE_ENTRIES]!;
  }
  /** Its size in bytes: what merging it costs. */
  get byteLength(): number {
    return this.buffer.byteLength;
  }

  /** The entry of the address (20 bytes of `key` from `at`) of hash `h`; 0 when none. */
  findAddress(key: Uint8Array, h: number, at = 0): number {
    const table = this.addressTable;
    const mask = table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = table[i]!;
      if (e === 0) return 0;
      if (this.words[(e + A_HASH) >> 2] === h && same(this.bytes, e, key, at, 20)) return e;
    }
  }

  /** An address entry's bits (layerLayout.ts); 0 for no entry. */
  flags(entry: number): number {
    return entry === 0 ? 0 : this.bytes[entry + A_FLAGS]!;
  }

  /** The account an address entry with SETS_ACCOUNT holds. */
  account(entry: number): AccountRecord | undefined {
    const flags = this.bytes[entry + A_FLAGS]!;
    if ((flags & DELETED) !== 0) return undefined;
    return {
      nonce: readWord(this.view, entry + A_NONCE),
      balance: readWord(this.view, entry + A_BALANCE),
      codeHash:
        (flags & HAS_CODE) === 0
          ? undefined
          : this.bytes.slice(entry + A_CODE_HASH, entry + A_CODE_HASH + 32),
    };
  }

  /** The entry of a slot (address in `a` from `aAt`, slot in `s` from `sAt`); 0 when none. */
  findSlot(a: Uint8Array, aAt: number, s: Uint8Array, sAt: number, h: number): number {
    const table = this.slotTable;
    const mask = table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = table[i]!;
      if (e === 0) return 0;
      if (
        this.words[(e + S_HASH) >> 2] === h &&
        same(this.bytes, e + S_SLOT, s, sAt, 32) &&
        same(this.bytes, e, a, aAt, 20)
      )
        return e;
    }
  }

  /** A slot entry's value, leading zeros trimmed (empty: zero), in memory of its own. */
  slotValue(entry: number): Uint8Array {
    const length = this.bytes[entry + S_LENGTH]!;
    if (length === 0) return EMPTY;
    // By hand: quicker than slice() for a word.
    const out = new Uint8Array(length);
    const from = entry + S_VALUE;
    for (let i = 0; i < length; i++) out[i] = this.bytes[from + i]!;
    return out;
  }

  /** The entry of the code of hash `codeHash` (key hash `h`); 0 when none. */
  findCode(codeHash: Uint8Array, h: number): number {
    const table = this.codeTable;
    const mask = table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const e = table[i]!;
      if (e === 0) return 0;
      if (this.words[(e + C_HASH) >> 2] === h && same(this.bytes, e, codeHash, 0, 32)) return e;
    }
  }

  codeLength(entry: number): number {
    return this.view.getUint32(entry + C_LENGTH, true);
  }

  /** A code entry's code, in memory of its own. */
  code(entry: number): Uint8Array {
    return this.bytes.slice(entry + C_CODE, entry + C_CODE + this.codeLength(entry));
  }

  /** The key hash an entry keeps (at A_HASH, S_HASH or C_HASH of it). */
  hashAt(at: number): number {
    return this.words[at >> 2]!;
  }

  /** The address of an address or slot entry, in memory of its own. */
  addressOf(entry: number): Uint8Array {
    return this.bytes.slice(entry, entry + 20);
  }

  slotOf(entry: number): Uint8Array {
    return this.bytes.slice(entry + S_SLOT, entry + S_SLOT + 32);
  }

  eachAddress(fn: (entry: number) => void): void {
    const first = this.words[H_ADDRESS_ENTRIES]!;
    for (let i = 0; i < this.addressCount; i++) fn(first + i * ADDRESS_ENTRY);
  }

  eachSlot(fn: (entry: number) => void): void {
    const first = this.words[H_SLOT_ENTRIES]!;
    for (let i = 0; i < this.slotCount; i++) fn(first + i * SLOT_ENTRY);
  }

  eachCode(fn: (entry: number) => void): void {
    let e = this.words[H_CODE_ENTRIES]!;
    for (let i = 0; i < this.codeCount; i++) {
      fn(e);
      e += C_CODE + ((this.codeLength(e) + 3) & ~3);
    }
  }
}
