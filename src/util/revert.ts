import { bytesToHex } from "./hex.ts";

/** Solidity's Panic(uint256) codes as geth names them (accounts/abi panicReasons). */
const PANIC_REASONS: Record<string, string> = {
  "0": "generic panic",
  "1": "assert(false)",
  "17": "arithmetic underflow or overflow",
  "18": "division or modulo by zero",
  "33": "enum overflow",
  "34": "invalid encoded storage byte array accessed",
  "49": "out-of-bounds array access; popping on an empty array",
  "50": "out-of-bounds access of an array or bytesN",
  "65": "out of memory",
  "81": "uninitialized function",
};

/**
 * ABI `Error(string)` or `Panic(uint256)` revert data → its message (as geth's
 * abi.UnpackRevert); else undefined.
 */
export function revertReason(data: Uint8Array): string | undefined {
  const selector = data.length < 4 ? "" : bytesToHex(data.subarray(0, 4));
  if (selector === "0x4e487b71" && data.length >= 36) {
    const code = BigInt(bytesToHex(data.subarray(4, 36)));
    return PANIC_REASONS[code.toString()] ?? `unknown panic code: 0x${code.toString(16)}`;
  }
  if (data.length < 68 || selector !== "0x08c379a0") return undefined;
  const length = Number(BigInt(bytesToHex(data.subarray(36, 68))));
  if (68 + length > data.length) return undefined;
  return new TextDecoder().decode(data.subarray(68, 68 + length));
}

/** geth's revert error message. */
export function revertMessage(data: Uint8Array): string {
  const reason = revertReason(data);
  return reason === undefined ? "execution reverted" : `execution reverted: ${reason}`;
}
