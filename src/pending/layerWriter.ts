// Lays out state layers (pending/layerLayout.ts): a flashblock's diff, or two adjacent layers
// merged into one. Memory is sized up front from bounds and filled once; nothing writes it after.
import type { AccountRecord } from "../chain/types.ts";
import {
  A_BALANCE,
  A_CODE_HASH,
  A_FLAGS,
  A_HASH,
  A_NONCE,
  ACCOUNT_BITS,
  ADDRESS_ENTRY,
  addressHash,
  C_CODE,
  C_HASH,
  C_LENGTH,
  codeKeyHash,
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
  HAS_SLOTS,
  HEADER_BYTES,
  MAGIC,
  S_HASH,
  S_LENGTH,
  S_SLOT,
  S_VALUE,
  SETS_ACCOUNT,
  SLOT_ENTRY,
  same,
  slotHash,
  tableCapacity,
  WIPED,
  word,
  writeWord,
} from "./layerLayout.ts";
import { StateLayer } from "./stateLayer.ts";
import type { StateDiff } from "./types.ts";

/** The diff laid out; undefined when it writes nothing. */
export function encodeLayer(diff: StateDiff): StateLayer | undefined {
  const { accounts, storage, wiped, code } = diff;
  if (accounts.length + storage.length + wiped.length + code.length === 0) return undefined;
  let codeBytes = 0;
  for (const [, c] of code) codeBytes += c.length;
  const w = new LayerWriter({
    addresses: accounts.length + wiped.length + addressRuns(storage),
    slots: storage.length,
    codes: code.length,
    codeBytes,
  });
  // Wipes first: the diff's slots were written after its accounts' storage was cleared.
  for (const address of wiped) w.flag(w.address(address, 0, addressHash(address)), WIPED);
  for (const [address, account] of accounts) w.account(address, account);
  for (const [address, slot, value] of storage) w.slot(address, word(slot), value);
  for (const [hash, c] of code) w.code(hash, 0, codeKeyHash(hash), c, 0, c.length);
  return w.finish();
}

/** How many runs of one address the slots make: at least the addresses they write. */
function addressRuns(storage: StateDiff["storage"]): number {
  let runs = 0;
  let last: Uint8Array | undefined;
  for (const [address] of storage) {
    if (last === undefined || (address !== last && !same(address, 0, last, 0, 20))) runs++;
    last = address;
  }
  return runs;
}

/** Copies `length` bytes: small keys and values copy faster by hand than through subarray(). */
function copy(to: Uint8Array, at: number, from: Uint8Array, start: number, length: number) {
  for (let i = 0; i < length; i++) to[at + i] = from[start + i]!;
}

/**
 * One layer that reads as `newer` over `older` does: the newer's entries win, and its wipes
 * hide the older's slots of the wiped accounts.
 */
export function mergeLayers(newer: StateLayer, older: StateLayer): StateLayer {
  const w = new LayerWriter({
    addresses: newer.addressCount + older.addressCount,
    slots: newer.slotCount + older.slotCount,
    codes: newer.codeCount + older.codeCount,
    codeBytes: newer.codeBytes + older.codeBytes,
  });
  const wipedInNewer = (b: Uint8Array, at: number, h: number) =>
    (newer.flags(newer.findAddress(b, h, at)) & WIPED) !== 0;
  for (const layer of [newer, older]) {
    const ofNewer = layer === newer;
    const b = layer.bytes;
    layer.eachAddress((e) => {
      const h = layer.hashAt(e + A_HASH);
      const flags = b[e + A_FLAGS]!;
      const at = w.address(b, e, h);
      if (ofNewer) {
        w.copyAccount(at, b, e, flags);
        w.flag(at, flags & (WIPED | HAS_SLOTS));
        return;
      }
      if ((w.flags(at) & SETS_ACCOUNT) === 0 && (flags & SETS_ACCOUNT) !== 0)
        w.copyAccount(at, b, e, flags);
      const hidden = wipedInNewer(b, e, h);
      w.flag(at, (flags & WIPED) | (hidden ? 0 : flags & HAS_SLOTS));
    });
    layer.eachSlot((e) => {
      const h = layer.hashAt(e + S_HASH);
      if (!ofNewer) {
        if (wipedInNewer(b, e, addressHash(b, e))) return;
        if (newer.findSlot(b, e, b, e + S_SLOT, h) !== 0) return;
      }
      w.copySlot(b, e, h);
    });
    layer.eachCode((e) => {
      w.code(b, e, layer.hashAt(e + C_HASH), b, e + C_CODE, layer.codeLength(e));
    });
  }
  return w.finish();
}

/** Space for the entries a layer may hold (a key written twice takes one entry). */
type Bounds = {
  readonly addresses: number;
  readonly slots: number;
  readonly codes: number;
  readonly codeBytes: number;
};

/** Fills one layer's memory: each key entered once, found again by its hash. */
class LayerWriter {
  private readonly buffer: SharedArrayBuffer;
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly words: Uint32Array;
  private readonly addressTable: Uint32Array;
  private readonly slotTable: Uint32Array;
  private readonly codeTable: Uint32Array;
  private addresses = 0;
  private slots = 0;
  private codes = 0;
  private codeEnd: number;

  constructor(bounds: Bounds) {
    const addressCap = tableCapacity(bounds.addresses);
    const slotCap = tableCapacity(bounds.slots);
    const codeCap = tableCapacity(bounds.codes);
    let at = HEADER_BYTES;
    const take = (bytes: number) => {
      const start = at;
      at += bytes;
      return start;
    };
    const addressTable = take(addressCap * 4);
    const slotTable = take(slotCap * 4);
    const codeTable = take(codeCap * 4);
    const addressEntries = take(bounds.addresses * ADDRESS_ENTRY);
    const slotEntries = take(bounds.slots * SLOT_ENTRY);
    // Each code entry pads its code to 4 bytes (every entry and table stays word-aligned).
    const codeEntries = take(bounds.codes * (C_CODE + 3) + bounds.codeBytes);
    this.buffer = new SharedArrayBuffer((at + 3) & ~3);
    this.bytes = new Uint8Array(this.buffer);
    this.view = new DataView(this.buffer);
    this.words = new Uint32Array(this.buffer);
    const h = this.words;
    h[H_MAGIC] = MAGIC;
    h[H_ADDRESS_TABLE] = addressTable;
    h[H_ADDRESS_CAP] = addressCap;
    h[H_SLOT_TABLE] = slotTable;
    h[H_SLOT_CAP] = slotCap;
    h[H_CODE_TABLE] = codeTable;
    h[H_CODE_CAP] = codeCap;
    h[H_ADDRESS_ENTRIES] = addressEntries;
    h[H_SLOT_ENTRIES] = slotEntries;
    h[H_CODE_ENTRIES] = codeEntries;
    h[H_SIZE] = this.buffer.byteLength;
    this.codeEnd = codeEntries;
    this.addressTable = new Uint32Array(this.buffer, addressTable, addressCap);
    this.slotTable = new Uint32Array(this.buffer, slotTable, slotCap);
    this.codeTable = new Uint32Array(this.buffer, codeTable, codeCap);
  }

  /** The entry of the address in 20 bytes of `key` from `at` (hash `h`), entered if new. */
  address(key: Uint8Array, at: number, h: number): number {
    const table = this.addressTable;
    const mask = table.length - 1;
    let i = h & mask;
    for (let e = table[i]!; e !== 0; i = (i + 1) & mask, e = table[i]!)
      if (this.words[(e + A_HASH) >> 2] === h && same(this.bytes, e, key, at, 20)) return e;
    const e = this.words[H_ADDRESS_ENTRIES]! + this.addresses++ * ADDRESS_ENTRY;
    copy(this.bytes, e, key, at, 20);
    this.words[(e + A_HASH) >> 2] = h;
    table[i] = e;
    return e;
  }

  flags(entry: number): number {
    return this.bytes[entry + A_FLAGS]!;
  }

  flag(entry: number, bits: number): void {
    this.bytes[entry + A_FLAGS] = this.bytes[entry + A_FLAGS]! | bits;
  }

  /** Sets an account (a later one of the same address replaces it). */
  account(address: Uint8Array, account: AccountRecord | undefined): void {
    const e = this.address(address, 0, addressHash(address));
    // New entries are zeroed memory; one set before is cleared.
    if ((this.bytes[e + A_FLAGS]! & SETS_ACCOUNT) !== 0)
      this.bytes.fill(0, e + A_NONCE, e + ADDRESS_ENTRY);
    const others = this.bytes[e + A_FLAGS]! & ~ACCOUNT_BITS;
    if (account === undefined) {
      this.bytes[e + A_FLAGS] = others | SETS_ACCOUNT | DELETED;
      return;
    }
    writeWord(this.view, e + A_NONCE, account.nonce);
    writeWord(this.view, e + A_BALANCE, account.balance);
    const codeHash = account.codeHash;
    if (codeHash !== undefined) copy(this.bytes, e + A_CODE_HASH, codeHash, 0, 32);
    this.bytes[e + A_FLAGS] = others | SETS_ACCOUNT | (codeHash === undefined ? 0 : HAS_CODE);
  }

  /** Copies the account of another layer's address entry, with the account's bits of `flags`. */
  copyAccount(entry: number, from: Uint8Array, e: number, flags: number): void {
    this.bytes.set(from.subarray(e + A_NONCE, e + ADDRESS_ENTRY), entry + A_NONCE);
    const others = this.bytes[entry + A_FLAGS]! & ~ACCOUNT_BITS;
    this.bytes[entry + A_FLAGS] = others | (flags & ACCOUNT_BITS);
  }

  /** Sets a slot (a 32-byte word) of `address` (a later value of the same slot replaces it). */
  slot(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    const ah = addressHash(address);
    this.flag(this.address(address, 0, ah), HAS_SLOTS);
    const e = this.slotEntry(address, 0, slot, 0, slotHash(ah, slot));
    let from = 0;
    while (from < value.length && value[from] === 0) from++;
    const length = value.length - from;
    if (length > 32) throw new RangeError(`a storage value of ${value.length} bytes`);
    // A slot written twice: the first value's tail is cleared.
    const before = this.bytes[e + S_LENGTH]!;
    if (before > length) this.bytes.fill(0, e + S_VALUE + length, e + S_VALUE + before);
    this.bytes[e + S_LENGTH] = length;
    copy(this.bytes, e + S_VALUE, value, from, length);
  }

  /** Copies another layer's slot entry whole (key hash `h`). */
  copySlot(from: Uint8Array, e: number, h: number): void {
    const at = this.slotEntry(from, e, from, e + S_SLOT, h);
    copy(this.bytes, at + S_LENGTH, from, e + S_LENGTH, 1 + from[e + S_LENGTH]!);
  }

  private slotEntry(a: Uint8Array, aAt: number, s: Uint8Array, sAt: number, h: number): number {
    const table = this.slotTable;
    const mask = table.length - 1;
    let i = h & mask;
    for (let e = table[i]!; e !== 0; i = (i + 1) & mask, e = table[i]!)
      if (
        this.words[(e + S_HASH) >> 2] === h &&
        same(this.bytes, e + S_SLOT, s, sAt, 32) &&
        same(this.bytes, e, a, aAt, 20)
      )
        return e;
    const e = this.words[H_SLOT_ENTRIES]! + this.slots++ * SLOT_ENTRY;
    copy(this.bytes, e, a, aAt, 20);
    copy(this.bytes, e + S_SLOT, s, sAt, 32);
    this.words[(e + S_HASH) >> 2] = h;
    table[i] = e;
    return e;
  }

  /** Enters code under its hash (32 bytes of `key` from `at`); the same hash is the same code. */
  code(key: Uint8Array, at: number, h: number, code: Uint8Array, from: number, length: number) {
    const table = this.codeTable;
    const mask = table.length - 1;
    let i = h & mask;
    for (let e = table[i]!; e !== 0; i = (i + 1) & mask, e = table[i]!)
      if (this.words[(e + C_HASH) >> 2] === h && same(this.bytes, e, key, at, 32)) return;
    const e = this.codeEnd;
    copy(this.bytes, e, key, at, 32);
    this.words[(e + C_HASH) >> 2] = h;
    this.view.setUint32(e + C_LENGTH, length, true);
    this.bytes.set(code.subarray(from, from + length), e + C_CODE);
    this.codeEnd = e + C_CODE + ((length + 3) & ~3);
    this.codes++;
    table[i] = e;
  }

  finish(): StateLayer {
    const h = this.words;
    h[H_ADDRESSES] = this.addresses;
    h[H_SLOTS] = this.slots;
    h[H_CODES] = this.codes;
    h[H_CODE_END] = this.codeEnd;
    return StateLayer.wrap(this.buffer);
  }
}
