// Key encoders for the tables in tables.ts. All numbers big-endian.

export function u64Key(n: number): Uint8Array {
  const out = new Uint8Array(8);
  writeU64(out, 0, n);
  return out;
}

export function writeU64(out: Uint8Array, offset: number, n: number): void {
  const hi = Math.floor(n / 0x1_0000_0000);
  const lo = n >>> 0;
  out[offset] = hi >>> 24;
  out[offset + 1] = (hi >>> 16) & 0xff;
  out[offset + 2] = (hi >>> 8) & 0xff;
  out[offset + 3] = hi & 0xff;
  out[offset + 4] = lo >>> 24;
  out[offset + 5] = (lo >>> 16) & 0xff;
  out[offset + 6] = (lo >>> 8) & 0xff;
  out[offset + 7] = lo & 0xff;
}

export function readU64(bytes: Uint8Array, offset = 0): number {
  const hi =
    ((bytes[offset]! << 24) |
      (bytes[offset + 1]! << 16) |
      (bytes[offset + 2]! << 8) |
      bytes[offset + 3]!) >>>
    0;
  const lo =
    ((bytes[offset + 4]! << 24) |
      (bytes[offset + 5]! << 16) |
      (bytes[offset + 6]! << 8) |
      bytes[offset + 7]!) >>>
    0;
  return hi * 0x1_0000_0000 + lo;
}

/** number ‖ hash: headers, bodies, receipts. */
export function blockKey(number: number, hash: Uint8Array): Uint8Array {
  const out = new Uint8Array(40);
  writeU64(out, 0, number);
  out.set(hash, 8);
  return out;
}

/** address ‖ slot: a slot's row. */
export function storageKey(address: Uint8Array, slot: Uint8Array): Uint8Array {
  const out = new Uint8Array(52);
  out.set(address, 0);
  out.set(slot, 20);
  return out;
}

/** address ‖ number: account history. */
export function accountHistoryKey(address: Uint8Array, number: number): Uint8Array {
  const out = new Uint8Array(28);
  out.set(address, 0);
  writeU64(out, 20, number);
  return out;
}

/** address ‖ slot ‖ number: a full storage history shard (keyed by its highest number). */
export function storageShardKey(address: Uint8Array, slot: Uint8Array, number: number): Uint8Array {
  const out = new Uint8Array(60);
  out.set(address, 0);
  out.set(slot, 20);
  writeU64(out, 52, number);
  return out;
}

/** number ‖ address: account change set. */
export function accountChangeKey(number: number, address: Uint8Array): Uint8Array {
  const out = new Uint8Array(28);
  writeU64(out, 0, number);
  out.set(address, 8);
  return out;
}

/** number ‖ address ‖ slot: storage change set (the pre-values). */
export function storageChangeKey(
  number: number,
  address: Uint8Array,
  slot: Uint8Array,
): Uint8Array {
  const out = new Uint8Array(60);
  writeU64(out, 0, number);
  out.set(address, 8);
  out.set(slot, 28);
  return out;
}

function writeU32(out: Uint8Array, offset: number, n: number): void {
  out[offset] = n >>> 24;
  out[offset + 1] = (n >>> 16) & 0xff;
  out[offset + 2] = (n >>> 8) & 0xff;
  out[offset + 3] = n & 0xff;
}

function readU32(bytes: Uint8Array, offset: number): number {
  return (
    ((bytes[offset]! << 24) |
      (bytes[offset + 1]! << 16) |
      (bytes[offset + 2]! << 8) |
      bytes[offset + 3]!) >>>
    0
  );
}

/** number ‖ u32: txLookup values (tx index) and pre-confirmation keys (flashblock index). */
function numberAndIndex(number: number, index: number): Uint8Array {
  const out = new Uint8Array(12);
  writeU64(out, 0, number);
  writeU32(out, 8, index);
  return out;
}

/** txLookup value: number ‖ index u32. */
export function txLocation(number: number, index: number): Uint8Array {
  return numberAndIndex(number, index);
}

export function readTxLocation(bytes: Uint8Array): { number: number; index: number } {
  return { number: readU64(bytes, 0), index: readU32(bytes, 8) };
}

/** number ‖ flashblock index u32: pre-confirmation records. */
export function flashblockKey(number: number, index: number): Uint8Array {
  return numberAndIndex(number, index);
}

export function readFlashblockIndex(key: Uint8Array): number {
  return readU32(key, 8);
}
