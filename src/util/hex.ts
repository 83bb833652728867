// Hex conversions used on every request: table-driven, no regexes, no intermediate arrays.

const HEX_CHARS = "0123456789abcdef";
const BYTE_TO_HEX: string[] = [];
for (let i = 0; i < 256; i++) {
  BYTE_TO_HEX.push(HEX_CHARS[i >> 4]! + HEX_CHARS[i & 15]!);
}

// Nibble value per char code; -1 for a non-hex character.
const NIBBLE = new Int8Array(128).fill(-1);
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i;
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i;
  NIBBLE[97 + i] = 10 + i;
}

export type Hex = `0x${string}`;

/** `0x`-prefixed lowercase hex of the bytes (DATA encoding). */
export function bytesToHex(bytes: Uint8Array): Hex {
  let out = "0x";
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]!];
  return out as Hex;
}

/** Hex digits without prefix. */
export function bytesToUnprefixedHex(bytes: Uint8Array): string {
  let out = "";
  for (let i = 0; i < bytes.length; i++) out += BYTE_TO_HEX[bytes[i]!];
  return out;
}

/** Returns -1 when `code` is not a hex digit. */
export function nibble(code: number): number {
  return code < 128 ? NIBBLE[code]! : -1;
}

/**
 * Decodes hex digits (no prefix handling) of even length into bytes.
 * Returns undefined on a non-hex character or odd length.
 */
export function unprefixedHexToBytes(hex: string, start = 0): Uint8Array | undefined {
  const len = hex.length - start;
  if (len % 2 !== 0) return undefined;
  const out = new Uint8Array(len / 2);
  for (let i = 0; i < out.length; i++) {
    const hi = nibble(hex.charCodeAt(start + 2 * i));
    const lo = nibble(hex.charCodeAt(start + 2 * i + 1));
    if (hi < 0 || lo < 0) return undefined;
    out[i] = (hi << 4) | lo;
  }
  return out;
}

/** Decodes `0x`-prefixed hex into bytes; throws on malformed input (trusted inputs only). */
export function hexToBytes(hex: string): Uint8Array {
  const start = hex.startsWith("0x") || hex.startsWith("0X") ? 2 : 0;
  const bytes = unprefixedHexToBytes(hex, start);
  if (bytes === undefined) throw new Error(`malformed hex: ${hex.slice(0, 80)}`);
  return bytes;
}

/** QUANTITY encoding: `0x` + shortest hex, `0x0` for zero. */
export function quantity(value: bigint | number): Hex {
  return `0x${value.toString(16)}` as Hex;
}

/** Big-endian bytes to bigint (empty → 0n). */
export function bytesToBigInt(bytes: Uint8Array): bigint {
  if (bytes.length === 0) return 0n;
  if (bytes.length <= 6) {
    let n = 0;
    for (let i = 0; i < bytes.length; i++) n = n * 256 + bytes[i]!;
    return BigInt(n);
  }
  return BigInt(`0x${bytesToUnprefixedHex(bytes)}`);
}

/** Minimal big-endian bytes of a non-negative bigint (0n → empty). */
export function bigIntToBytes(value: bigint): Uint8Array {
  if (value === 0n) return new Uint8Array(0);
  let hex = value.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return unprefixedHexToBytes(hex)!;
}

/** Left-pads (or keeps) bytes to `length`; input longer than length is an error. */
export function padLeft(bytes: Uint8Array, length: number): Uint8Array {
  if (bytes.length === length) return bytes;
  if (bytes.length > length) throw new Error(`value of ${bytes.length} bytes exceeds ${length}`);
  const out = new Uint8Array(length);
  out.set(bytes, length - bytes.length);
  return out;
}

/** Strips leading zero bytes. */
export function trimLeadingZeros(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length && bytes[i] === 0) i++;
  return i === 0 ? bytes : bytes.subarray(i);
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * A copy that owns its memory. (`Buffer#slice` is a view, unlike `Uint8Array#slice`, and
 * storage-engine buffers are reused between reads.)
 */
export function copyBytes(bytes: Uint8Array, start = 0, end = bytes.length): Uint8Array {
  return Uint8Array.prototype.slice.call(bytes, start, end);
}
