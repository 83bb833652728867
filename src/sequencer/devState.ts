// What the dev methods keep in the sequencer (never on disk, as anvil keeps them in memory): the
// impersonated senders, the clock's offset and next timestamp, and the evm_snapshot points.
import { randomBytes } from "node:crypto";
import type { FlashblockRecord } from "../store/archive.ts";
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
  /**
   * The exact timestamp of the next block sealed (evm_setNextBlockTimestamp): every opening of
   * the block being built takes it, until that block seals (sealed()), as anvil's exact
   * timestamp wins over time added after it (hardhat_mine's interval).
   */
  next: bigint | undefined;

  /**
   * The timestamp of a block opened now on a parent with `parentTimestamp`, at most
   * MAX_TIMESTAMP (however far evm_increaseTime moved the clock). The sequencer never seals a
   * block at MAX_TIMESTAMP, so a parent always leaves room for one more second.
   */
  take(parentTimestamp: bigint): bigint {
    if (this.next === undefined) return this.following(parentTimestamp);
    const now = BigInt(Math.floor(Date.now() / 1000));
    // Time goes on from there, as on anvil.
    this.offset = this.next - now;
    return this.clamped(this.next, parentTimestamp);
  }

  /**
   * The timestamp take() gives the block after one sealing now at `parentTimestamp` (the exact
   * timestamp asked for was that block's): the seal records the next block's opening with it.
   */
  following(parentTimestamp: bigint): bigint {
    return this.clamped(BigInt(Math.floor(Date.now() / 1000)) + this.offset, parentTimestamp);
  }

  private clamped(t: bigint, parentTimestamp: bigint): bigint {
    const above = t <= parentTimestamp ? parentTimestamp + 1n : t;
    return above < MAX_TIMESTAMP ? above : MAX_TIMESTAMP;
  }

  /** The block that took the exact timestamp has sealed: later blocks go on from the clock. */
  sealed(): void {
    this.next = undefined;
  }
}

export type Snapshot = {
  /** The head when it was taken, and the pre-confirmed part of the block on it. */
  readonly head: number;
  readonly headHash: Uint8Array;
  readonly records: readonly FlashblockRecord[];
  readonly offset: bigint;
  readonly next: bigint | undefined;
  readonly nextBaseFee: bigint | undefined;
};

export class DevState {
  readonly clock = new DevClock();
  /** The base fee of the next block sealed (anvil_setNextBlockBaseFeePerGas), until it seals. */
  nextBaseFee: bigint | undefined;
  /** This run's id (anvil_metadata's instanceId): a restart is another instance. */
  readonly instanceId: Uint8Array = randomBytes(32);
  /** Blocks rebuilt by a dev method so far (each gets a payload id of its own). */
  private generation = 0;
  private readonly impersonated = new Map<string, Uint8Array>();
  autoImpersonate = false;
  private readonly snapshots = new Map<bigint, Snapshot>();
  /** Ids are never reused (anvil's counter). */
  private nextSnapshot = 0n;

  /** The number of the next block rebuilt by a dev method. */
  nextGeneration(): number {
    return ++this.generation;
  }

  /** The block that took the next block's settings has sealed. */
  sealed(): void {
    this.clock.sealed();
    this.nextBaseFee = undefined;
  }

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

  /** Every snapshot that can still be reverted to: its id, head number and hash. */
  snapshotList(): Array<readonly [bigint, number, Uint8Array]> {
    return [...this.snapshots].map(([id, s]) => [id, s.head, s.headHash] as const);
  }

  /** The snapshot, which is dropped with every later one (anvil's evm_revert). */
  takeBack(id: bigint): Snapshot | undefined {
    const s = this.snapshots.get(id);
    if (s === undefined) return undefined;
    for (const key of [...this.snapshots.keys()]) if (key >= id) this.snapshots.delete(key);
    return s;
  }
}
