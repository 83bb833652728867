// What the dev methods keep in the sequencer (never on disk, as anvil keeps them in memory): the
// impersonated senders, the clock's offset and next timestamp, and the evm_snapshot points.
import type { FlashblockRecord } from "../store/chainStore.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";

/**
 * The largest timestamp a dev block may have; a block at it can have no child. Headers hold 64
 * bits, but the EVM library compares fork times as JavaScript numbers, which fails erratically
 * past 2^53 - 1 ("Maximum HF determined by block number is lower than timestamp HF").
 */
export const MAX_TIMESTAMP = BigInt(Number.MAX_SAFE_INTEGER);

/** anvil's TimeManager, for the blocks this sequencer opens. */
export class DevClock {
  /** Seconds added to the wall clock (evm_increaseTime, evm_setNextBlockTimestamp). */
  offset = 0n;
  /** The exact timestamp of the next block opened (evm_setNextBlockTimestamp), once. */
  next: bigint | undefined;

  /**
   * The timestamp of a block opened now on a parent with `parentTimestamp`, at most
   * MAX_TIMESTAMP (however far evm_increaseTime moved the clock). The sequencer never seals a
   * block at MAX_TIMESTAMP, so a parent always leaves room for one more second.
   */
  take(parentTimestamp: bigint): bigint {
    const now = BigInt(Math.floor(Date.now() / 1000));
    let t = now + this.offset;
    if (this.next !== undefined) {
      t = this.next;
      // Time goes on from there, as on anvil.
      this.offset = this.next - now;
      this.next = undefined;
    }
    if (t <= parentTimestamp) t = parentTimestamp + 1n;
    return t < MAX_TIMESTAMP ? t : MAX_TIMESTAMP;
  }
}

export type Snapshot = {
  /** The head when it was taken, and the pre-confirmed part of the block on it. */
  readonly head: number;
  readonly headHash: Uint8Array;
  readonly records: readonly FlashblockRecord[];
  readonly offset: bigint;
  readonly next: bigint | undefined;
};

export class DevState {
  readonly clock = new DevClock();
  private readonly impersonated = new Map<string, Uint8Array>();
  autoImpersonate = false;
  private readonly snapshots = new Map<bigint, Snapshot>();
  /** Ids are never reused (anvil's counter). */
  private nextSnapshot = 0n;

  impersonate(address: Uint8Array, on: boolean): void {
    if (on) this.impersonated.set(bytesToUnprefixedHex(address), address);
    else this.impersonated.delete(bytesToUnprefixedHex(address));
  }

  isImpersonated(address: Uint8Array): boolean {
    return this.autoImpersonate || this.impersonated.has(bytesToUnprefixedHex(address));
  }

  impersonatedAccounts(): Uint8Array[] {
    return [...this.impersonated.values()];
  }

  takeSnapshot(s: Snapshot): bigint {
    const id = this.nextSnapshot++;
    this.snapshots.set(id, s);
    return id;
  }

  /** The snapshot, which is dropped with every later one (anvil's evm_revert). */
  takeBack(id: bigint): Snapshot | undefined {
    const s = this.snapshots.get(id);
    if (s === undefined) return undefined;
    for (const key of [...this.snapshots.keys()]) if (key >= id) this.snapshots.delete(key);
    return s;
  }
}
