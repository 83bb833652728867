// An OP-stack sequencer's deposits: the user deposits flashnode_depositTransaction hands it, kept
// until the next block opens, and the deposits each block opens with (the L1-info deposit of
// the simulated L1, then those user deposits), as Base puts them first, in flashblock 0.
import type { Common } from "@ethereumjs/common";
import { type DepositTx, decodeDepositTx } from "../chain/op/depositTx.ts";
import {
  DEFAULT_DEV_L1,
  type DevL1Config,
  devL1Values,
  l1InfoDeposit,
} from "../chain/op/l1Info.ts";
import { TxRejectedError } from "../services/transactions.ts";

export class DepositQueue {
  private waiting: DepositTx[] = [];

  constructor(
    private readonly common: Common,
    private readonly l1: DevL1Config = DEFAULT_DEV_L1,
  ) {}

  /** A user deposit (0x7e envelope) for the next block. */
  accept(raw: Uint8Array): DepositTx {
    let tx: DepositTx;
    try {
      tx = decodeDepositTx(raw, this.common);
    } catch (e) {
      throw new TxRejectedError(`invalid deposit: ${(e as Error).message}`);
    }
    this.waiting.push(tx);
    return tx;
  }

  /**
   * The deposits opening the block at `timestamp`; `recorded` (flashblock 0 of a block rebuilt
   * after a restart) gives them as they were published; `freshL1Info` (a block reopened at
   * another time) makes its L1-info deposit, the first, anew for that time.
   */
  opening(timestamp: bigint, recorded?: readonly Uint8Array[], freshL1Info = false): DepositTx[] {
    if (recorded !== undefined) {
      const deposits = recorded.map((raw) => decodeDepositTx(raw, this.common));
      if (!freshL1Info || deposits.length === 0) return deposits;
      return [l1InfoDeposit(devL1Values(this.l1, timestamp), this.common), ...deposits.slice(1)];
    }
    return [l1InfoDeposit(devL1Values(this.l1, timestamp), this.common), ...this.waiting.splice(0)];
  }

  /**
   * What opening(timestamp) gives, the user deposits left waiting (a seal records the next
   * block's opening before that block opens; a seal that fails keeps them for the next try).
   */
  preview(timestamp: bigint): DepositTx[] {
    return [l1InfoDeposit(devL1Values(this.l1, timestamp), this.common), ...this.waiting];
  }

  /** The first `count` user deposits waiting went into a block opened from a preview. */
  taken(count: number): void {
    this.waiting.splice(0, count);
  }
}
