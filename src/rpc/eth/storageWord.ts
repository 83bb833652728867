import { bytesToUnprefixedHex } from "../../util/hex.ts";

const ZEROS = "0".repeat(64);

/** A storage value (leading zeros trimmed) as geth returns it: 0x + 64 hex digits. */
export function storageWord(value: Uint8Array): string {
  const hex = bytesToUnprefixedHex(value);
  return `0x${ZEROS.slice(hex.length)}${hex}`;
}
