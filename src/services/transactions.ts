// Transaction intake and the dev methods' requests, as the RPC methods ask for them and the
// sequencer (or a replica's forwarder) answers.
import type { LoadedState, StateDump } from "../chain/anvilState.ts";
import type { StateWrite } from "../chain/types.ts";
import { FlashnodeError } from "../util/errors.ts";

/**
 * A transaction the intake refuses (the pool, or its decoding); the message is geth's. JSON-RPC
 * code -32000.
 */
export class TxRejectedError extends FlashnodeError {
  readonly code = "TX_REJECTED";
}

/** One transaction of the pool, as txpool_* and testing_buildBlockV1 see it. */
export type PoolTransaction = {
  readonly sender: Uint8Array;
  /** The transaction as a block holds it (a blob transaction without its sidecar). */
  readonly raw: Uint8Array;
  /** A blob transaction with its sidecar (network form), when the pool still has it. */
  readonly withSidecar?: Uint8Array;
};

/**
 * The pool as geth's txpool_* show theirs: `pending` are the transactions not yet in a sealed
 * block that can run now (the pre-confirmed ones, in block order, then those waiting for the
 * next flashblock), `queued` those waiting on a nonce gap.
 */
export type PoolContent = {
  readonly pending: readonly PoolTransaction[];
  readonly queued: readonly PoolTransaction[];
};

/** What a dev method asks of the sequencer (src/sequencer/devRequests.ts). */
export type DevRequest =
  | { readonly op: "write"; readonly write: StateWrite }
  | { readonly op: "impersonate"; readonly address: Uint8Array; readonly on: boolean }
  | { readonly op: "autoImpersonate"; readonly on: boolean }
  | { readonly op: "impersonation" }
  | { readonly op: "snapshot" }
  | { readonly op: "revert"; readonly id: bigint }
  | { readonly op: "increaseTime"; readonly seconds: bigint }
  | { readonly op: "setNextTimestamp"; readonly timestamp: bigint }
  | {
      readonly op: "mine";
      readonly blocks: bigint;
      /** Seconds between the mined blocks' timestamps (anvil_mine); undefined: the clock's. */
      readonly interval: bigint | undefined;
      /** The first mined block's timestamp (evm_mine). */
      readonly timestamp: bigint | undefined;
    }
  /** evm_setAutomine. */
  | { readonly op: "setAutomine"; readonly on: boolean }
  /** evm_setIntervalMining: a block every `seconds`; 0 stops interval mining. */
  | { readonly op: "setIntervalMining"; readonly seconds: bigint }
  /** anvil_getAutomine, anvil_getIntervalMining. */
  | { readonly op: "mining" }
  /** anvil_metadata: this run's instance id and the snapshots. */
  | { readonly op: "metadata" }
  /** anvil_setNextBlockBaseFeePerGas: the block being built is reopened with it. */
  | { readonly op: "setNextBaseFee"; readonly baseFee: bigint }
  /** anvil_dropTransaction: out of the pool, or out of the block being built. */
  | { readonly op: "dropTransaction"; readonly hash: Uint8Array }
  /** eth_sendUnsignedTransaction: a placeholder-signed transaction run as its sender's. */
  | { readonly op: "submitUnsigned"; readonly raw: Uint8Array }
  /** anvil_dumpState, --dump-state: every account, with what is pre-confirmed. */
  | { readonly op: "dumpState" }
  /** anvil_loadState, --load-state: the accounts written into the block being built. */
  | { readonly op: "loadState"; readonly state: LoadedState }
  /**
   * anvil_reset / hardhat_reset: the chain is replaced, in one step, by a fork of `fork.url` (the
   * current upstream when absent) at `fork.blockNumber` (its head less a few when absent), or,
   * without `fork`, by a new dev chain. Handled by the chain source, not the sequencer.
   */
  | {
      readonly op: "reset";
      readonly fork?: { readonly url?: string; readonly blockNumber?: bigint };
    };

/** The sequencer's answer; which fields are set depends on the request. */
export type DevAnswer = {
  /** `impersonation`: the impersonated accounts and whether every account is. */
  readonly accounts?: readonly Uint8Array[];
  readonly auto?: boolean;
  /** `snapshot`: its id. */
  readonly id?: bigint;
  /** `revert`: whether the snapshot existed. */
  readonly reverted?: boolean;
  /** `increaseTime`: the clock's whole offset, in seconds. */
  readonly offset?: bigint;
  /** `mining`: automine, and interval mining's block time (absent: none). */
  readonly automine?: boolean;
  readonly intervalMs?: number;
  /** `dropTransaction`: whether the transaction was there to drop. */
  readonly dropped?: boolean;
  /** `submitUnsigned`: the transaction's hash. */
  readonly hash?: string;
  /** `dumpState`. */
  readonly state?: StateDump;
  /** `metadata`: this sequencer run's random id, and each snapshot's id, head number and hash. */
  readonly instanceId?: Uint8Array;
  readonly snapshots?: ReadonlyArray<readonly [id: bigint, head: number, hash: Uint8Array]>;
};

/** Transaction intake (only `flashnode dev` has one). */
export type TransactionSink = {
  submit(raw: Uint8Array): Promise<{ hash: string }>;
  /** The sequencer's pool (absent where transactions are only forwarded: a replica). */
  poolContent?(): Promise<PoolContent>;
  /** The pool's next nonce for a sender (its contiguous run of accepted txs), if it has any. */
  poolNonce(address: Uint8Array): bigint | undefined;
  /** Seals the block being built now (anvil's evm_mine); the sealed block's number. */
  mine(): Promise<number>;
  /** The dev methods' requests (absent where there is no sequencer here: a replica). */
  control?(request: DevRequest): Promise<DevAnswer>;
  /**
   * Resolves when transaction lookups can see the transaction (pre-confirmed, or sealed when
   * lookups see only sealed blocks), or with false at the deadline.
   */
  waitForReceipt(hash: Uint8Array, timeoutMs: number): Promise<boolean>;
};
