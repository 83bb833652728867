// Reads of the pre-confirmed state: the pending block's writes over its parent's state.
import type { AccountRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import type { PendingBlock } from "./pendingBlock.ts";

export type StateView = {
  account(address: Uint8Array): AccountRecord | undefined;
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  code(codeHash: Uint8Array): Uint8Array | undefined;
};

const EMPTY = new Uint8Array(0);

/** The pending block's writes over `parent`: a class, since one is made per pending read. */
export class PendingOverlay implements StateView {
  constructor(
    protected readonly block: PendingBlock,
    protected readonly parent: StateView,
  ) {}

  account(address: Uint8Array): AccountRecord | undefined {
    const key = bytesToUnprefixedHex(address);
    return this.block.accounts.has(key)
      ? this.block.accounts.get(key)
      : this.parent.account(address);
  }

  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    // Most reads are of accounts the pending block did not write: no slot key is built for them.
    if (this.block.storageAddresses.size === 0) return this.parent.storage(address, slot);
    const hex = bytesToUnprefixedHex(address);
    if (!this.block.storageAddresses.has(hex)) return this.parent.storage(address, slot);
    const value = this.block.storage.get(hex + bytesToUnprefixedHex(slot));
    if (value !== undefined) return value;
    return this.block.wiped.has(hex) ? EMPTY : this.parent.storage(address, slot);
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.block.code.get(bytesToUnprefixedHex(codeHash)) ?? this.parent.code(codeHash);
  }
}

export function overlayPending(p: PendingBlock, parent: StateView): StateView {
  return new PendingOverlay(p, parent);
}
