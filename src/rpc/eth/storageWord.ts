import { bytesToUnprefixedHex } from "../../util/hex.ts";

const ZEROS = "0".repeat(64);
/** "0x" and 64 hex digits, written in place for long values. */
const WORD = Buffer.alloc(66, 0x30);
WORD[1] = 0x78;
const DIGITS = Array.from("0123456789abcdef", (c) => c.charCodeAt(0));
/** Below this many bytes, concatenating two-digit strings is the cheaper way (measured). */
const IN_PLACE_FROM = 8;

/** A storage value (leading zeros trimmed) as geth returns it: 0x + 64 hex digits. */
export function storageWord(value: Uint8Array): string {
  if (value.length < IN_PLACE_FROM) {
    const hex = bytesToUnprefixedHex(value);
    return `0x${ZEROS.slice(hex.length)}${hex}`;
  }
  if (value.length > 32) throw new RangeError(`a storage value of ${value.length} bytes`);
  // Hashes and other long values: 32 concatenations and their flattening cost about twice the
  // bytes written into one buffer and copied out as one string.
  const start = 66 - 2 * value.length;
  WORD.fill(0x30, 2, start);
  for (let i = 0; i < value.length; i++) {
    const b = value[i]!;
    WORD[start + 2 * i] = DIGITS[b >> 4]!;
    WORD[start + 2 * i + 1] = DIGITS[b & 15]!;
  }
  return WORD.toString("latin1", 0, 66);
}
