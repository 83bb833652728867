import { bytesToHex } from "./hex.ts";

/** ABI `Error(string)` revert data → its message (as geth's abi.UnpackRevert); else undefined. */
export function revertReason(data: Uint8Array): string | undefined {
  if (data.length < 68 || bytesToHex(data.subarray(0, 4)) !== "0x08c379a0") return undefined;
  const length = Number(BigInt(bytesToHex(data.subarray(36, 68))));
  if (68 + length > data.length) return undefined;
  return new TextDecoder().decode(data.subarray(68, 68 + length));
}

/** geth's revert error message. */
export function revertMessage(data: Uint8Array): string {
  const reason = revertReason(data);
  return reason === undefined ? "execution reverted" : `execution reverted: ${reason}`;
}
