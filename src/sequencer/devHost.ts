// What the dev requests (devRequests.ts, rebuild.ts, stateFile.ts) use of the sequencer, which
// implements it: its parts, the block being built, and the steps a block is built by.
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import type { FlashblockUpdate, PendingTransaction, SealedUpdate } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { RpcError } from "../util/errors.ts";
import type { RecordedOpening } from "./blockAssembly.ts";
import type { Building } from "./building.ts";
import type { DevState } from "./devState.ts";
import type { MiningMode } from "./mining.ts";

/** A dev request refused: for its arguments (anvil answers -32602) or for the chain's state. */
export class DevRequestError extends RpcError {
  override readonly code = "DEV_REQUEST";
  constructor(message: string, rpcCode = -32602) {
    super(rpcCode, message);
  }
}

export type DevHost = {
  readonly executor: BlockExecutor;
  readonly store: ChainStore;
  readonly common: Common;
  readonly dev: DevState;
  readonly opts: { readonly flashblockIntervalMs: number };
  readonly mining: MiningMode;
  readonly pool: {
    /** Puts transactions that ran before everything waiting back in front of it, in order. */
    restore(txs: readonly TypedTransaction[]): void;
    /** Removes a waiting transaction; whether it was there. */
    remove(hash: Uint8Array): boolean;
  };
  readonly log: (level: "info" | "warn", msg: string, fields: Record<string, unknown>) => void;
  setMining(mode: MiningMode): void;
  /** The block being built; throws when the sequencer is not running. */
  current(): Building;
  /** Makes `b` the block being built (a rebuilt or reopened one). */
  replace(b: Building): void;
  open(recorded?: RecordedOpening): Promise<Building>;
  include(b: Building, tx: BlockTransaction, allowNoBlobs?: boolean): Promise<PendingTransaction>;
  /** Executes everything the pool can run onto `b`. */
  executeWaiting(b: Building): Promise<PendingTransaction[]>;
  flashblockOf(
    b: Building,
    added: PendingTransaction[],
    started: number,
  ): Promise<FlashblockUpdate>;
  publish(update: FlashblockUpdate | SealedUpdate): void;
  publishFlashblock(b: Building, update: FlashblockUpdate, ops?: readonly Uint8Array[]): void;
  tick(forceSeal?: boolean): Promise<void>;
};

/**
 * Publishes what has run since the last flashblock (and, with `flush`, what waits in the pool)
 * in a flashblock now, off the grid; `ops` are recorded after its transactions.
 */
export async function flashblockNow(seq: DevHost, ops: Uint8Array[], flush = false): Promise<void> {
  const b = seq.current();
  const started = performance.now();
  const added = b.takeUnpublished();
  if (flush) added.push(...(await seq.executeWaiting(b)));
  if (added.length === 0 && ops.length === 0) return;
  b.advance();
  seq.publishFlashblock(b, await seq.flashblockOf(b, added, started), ops);
}
