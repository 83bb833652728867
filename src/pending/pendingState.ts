// Reads of the pre-confirmed state: the pending block's layers over its parent's state.
import type { AccountRecord } from "../chain/types.ts";
import { UNWRITTEN } from "./layerStack.ts";
import type { PendingSnapshot } from "./pendingBlock.ts";

/** State at one point (a sealed block, or the pending block over its parent), read without the trie. */
export type StateView = {
  account(address: Uint8Array): AccountRecord | undefined;
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array;
  code(codeHash: Uint8Array): Uint8Array | undefined;
};

/** The pending block's writes over `parent`: a class, since one is made per pending read. */
export class PendingOverlay implements StateView {
  constructor(
    protected readonly block: PendingSnapshot,
    protected readonly parent: StateView,
  ) {}

  account(address: Uint8Array): AccountRecord | undefined {
    const account = this.block.state.account(address);
    return account === UNWRITTEN ? this.parent.account(address) : account;
  }

  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    const value = this.block.state.storage(address, slot);
    return value === UNWRITTEN ? this.parent.storage(address, slot) : value;
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.block.state.code(codeHash) ?? this.parent.code(codeHash);
  }
}

export function overlayPending(p: PendingSnapshot, parent: StateView): StateView {
  return new PendingOverlay(p, parent);
}
