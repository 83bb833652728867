// The pre-confirmed block as it crosses from the sequencer (worker thread) to the RPC thread:
// plain data only (structured-clone friendly), one update per flashblock.
import type { AccountRecord, BlockReceipts, ReceiptRecord } from "../chain/types.ts";

/** Values written since the previous flashblock, read after its transactions executed. */
export type StateDiff = {
  readonly accounts: ReadonlyArray<
    readonly [address: Uint8Array, account: AccountRecord | undefined]
  >;
  /** Values with leading zeros trimmed (empty = zero). */
  readonly storage: ReadonlyArray<
    readonly [address: Uint8Array, slot: Uint8Array, value: Uint8Array]
  >;
  /** Accounts whose storage was cleared; applied before `storage`. */
  readonly wiped: readonly Uint8Array[];
  readonly code: ReadonlyArray<readonly [codeHash: Uint8Array, code: Uint8Array]>;
};

/**
 * A diff already laid out as a state layer's bytes (pending/stateLayer.ts; empty: it writes
 * nothing): how a flashblock crosses to an --rpc-workers reader process, which then copies the
 * layer instead of laying it out again (pending/updateLayers.ts). `accounts`: the diff's accounts
 * in their order, which the /flashblocks JSON lists and the layer does not keep (absent for an
 * update that is not on that stream).
 */
export type LaidOutDiff = {
  readonly layer: Uint8Array;
  readonly accounts?: StateDiff["accounts"];
};

/** A flashblock's identity on Base's wire: its builder's payload id and the block's hash so far. */
export type FlashblockWireIds = {
  readonly payloadId: string;
  /** The hash of the header so far with a zero state root (Base's `diff.block_hash`). */
  readonly blockHash: Uint8Array;
};

/** The block environment, fixed at flashblock 0 (Base's `base`). */
export type PendingBase = {
  readonly number: number;
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint;
  readonly coinbase: Uint8Array;
  readonly prevRandao: Uint8Array;
  readonly parentBeaconBlockRoot: Uint8Array;
  readonly extraData: Uint8Array;
  readonly blobGasPrice: bigint;
  readonly excessBlobGas: bigint;
};

export type PendingTransaction = {
  readonly hash: Uint8Array;
  /** EIP-2718 encoding, as it will appear in the block body. */
  readonly raw: Uint8Array;
  /**
   * When the sequencer's intake took it (epoch ms): send → pre-confirmed latency is
   * `publishedAt - receivedAt`. Absent for what no client sent (a deposit) and for transactions
   * re-executed from the record after a restart.
   */
  readonly receivedAt?: number;
};

export type FlashblockUpdate = {
  readonly kind: "flashblock";
  readonly base: PendingBase;
  readonly index: number;
  readonly transactions: readonly PendingTransaction[];
  readonly receipts: readonly ReceiptRecord[];
  readonly diff: StateDiff | LaidOutDiff;
  /** Cumulative for the block so far. */
  readonly gasUsed: bigint;
  readonly blobGasUsed: bigint;
  readonly logsBloom: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  readonly transactionsRoot: Uint8Array;
  /**
   * What Base's wire message for /flashblocks holds beyond the rest of the update; the JSON is
   * rendered from the update where it is served (pending/flashblockWire.ts: wireJsonOf). Absent
   * from an update that is not on that stream (`empty`).
   */
  readonly wire?: FlashblockWireIds;
  /** The wire message already rendered: on the stream of releases before flashnode-v8/2 only. */
  readonly wireJson?: string;
  /** Time the sequencer took to build it (ms), and when it was published (epoch ms, sub-ms precision). */
  readonly buildMs: number;
  readonly publishedAt: number;
  /**
   * Nothing is pre-confirmed on the head (a follower whose stream has no block on it, or whose
   * pending block was dropped): `pending` answers what `latest` does. No transactions; `base` is
   * the next block's as far as the head tells it. Never on the /flashblocks stream.
   */
  readonly empty?: true;
  /**
   * Where it stands in the stream (updatePosition below): set by the sequencer, it
   * keeps growing when the chain goes back (evm_revert) or a block is reopened.
   */
  readonly position?: number;
};

export type SealedUpdate = {
  readonly kind: "sealed";
  readonly number: number;
  readonly hash: Uint8Array;
  /** When the sequencer committed the block (epoch ms); absent from older streams. */
  readonly sealedAt?: number;
  /** The next block's flashblock 0, published in the same message so head and pending switch together. */
  readonly next: FlashblockUpdate;
  /**
   * evm_revert: no block was sealed; the chain went back to block `number` (already stored as
   * the head), and `next` begins rebuilding the block on it. With no blocks dropped, the block
   * being built was rebuilt on the same head (a dev method changed its time, its base fee or its
   * transactions): what it had pre-confirmed is dropped, and its flashblocks come again.
   */
  readonly reverted?: RevertedChain;
  /** anvil_reset: the archive holds another chain now (with `reverted` empty). */
  readonly reset?: ChainReset;
};

/** What readers need to serve a chain that replaced the one they served (anvil_reset). */
export type ChainReset = {
  /** The new chain is a fork: its upstream's URL and headers (each reader opens it). */
  readonly fork?: { readonly url: string; readonly headers: Readonly<Record<string, string>> };
};

/** One message of the sequencer's stream, as every reader's chain view applies it. */
export type ChainUpdate = FlashblockUpdate | SealedUpdate;

/**
 * A position in the stream, increasing with every update: the pending block's number and the
 * flashblock index within it (a seal carries the next block's index 0).
 */
export function updatePosition(u: ChainUpdate): number {
  const fb = u.kind === "flashblock" ? u : u.next;
  return fb.position ?? fb.base.number * 1024 + fb.index;
}

/** What an evm_revert dropped: readers report these logs removed (geth's reorg). */
export type RevertedChain = {
  /** The sealed blocks removed, oldest first. */
  readonly blocks: readonly BlockReceipts[];
  /** The pre-confirmed transactions of the block being built then (zero block hash). */
  readonly pending: BlockReceipts | undefined;
};
