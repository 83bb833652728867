// Reads of the pre-confirmed state: the pending block's writes over its parent's state.
import type { AccountRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { type PendingBlock, storageId } from "./pendingBlock.ts";

export type StateView = {
  account(address: Uint8Array): AccountRecord | undefined;
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  code(codeHash: Uint8Array): Uint8Array | undefined;
};

const EMPTY = new Uint8Array(0);

export function overlayPending(p: PendingBlock, parent: StateView): StateView {
  return {
    account(address) {
      const key = bytesToUnprefixedHex(address);
      return p.accounts.has(key) ? p.accounts.get(key) : parent.account(address);
    },
    storage(address, slot) {
      const value = p.storage.get(storageId(address, slot));
      if (value !== undefined) return value;
      return p.wiped.has(bytesToUnprefixedHex(address)) ? EMPTY : parent.storage(address, slot);
    },
    code: (codeHash) => p.code.get(bytesToUnprefixedHex(codeHash)) ?? parent.code(codeHash),
  };
}
