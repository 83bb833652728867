// What RPC handlers may use: read interfaces of the chain, state and pending block, and the
// sequencer/call services; never the store or the VM themselves.

import type { BlockView, FeeView, HeaderView, TransactionView } from "../chain/blockView.ts";
import type { ForkSchedule } from "../chain/ethConfig.ts";
import type { SafeAndFinalized } from "../chain/forkchoice.ts";
import type { ReceiptRecord } from "../chain/types.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import type { TimelineReader } from "../pending/txTimeline.ts";
import type { PendingBase, PendingTransaction } from "../pending/types.ts";
import type { ChainReader, StateReader } from "../store/chainStore.ts";
import type { LogQueryLimits } from "./eth/logQuery.ts";
import type { FilterCriteria } from "./filterCriteria.ts";
import type { SimulatedBlock, SimulateRequest } from "./simulateTypes.ts";

export type BlockDecoder = {
  header(headerRlp: Uint8Array): HeaderView;
  block(headerRlp: Uint8Array, bodyRlp: Uint8Array): BlockView;
  transaction(raw: Uint8Array): TransactionView;
  pendingBlock(block: PendingBlock): BlockView;
  fees(headerRlp: Uint8Array): FeeView;
  /** How many transactions and uncles a body holds, without decoding them. */
  bodyCounts(bodyRlp: Uint8Array): { transactions: number; uncles: number };
  /** A body's transactions in their binary encoding (what eth_sendRawTransaction takes). */
  bodyTransactions(bodyRlp: Uint8Array): Uint8Array[];
  /** A body's uncle headers, each as its RLP. */
  bodyUncles(bodyRlp: Uint8Array): Uint8Array[];
  /** A block's RLP from its header and body. */
  blockRlp(headerRlp: Uint8Array, bodyRlp: Uint8Array): Uint8Array;
  /** A receipt's consensus encoding (typed: type byte ‖ RLP), as the receipts trie holds it. */
  receiptRlp(receipt: ReceiptRecord): Uint8Array;
  /** The pre-confirmed block's header and body RLP (zero state root; no uncles, no withdrawals). */
  pendingHeaderRlp(block: PendingBlock): Uint8Array;
  pendingBodyRlp(block: PendingBlock): Uint8Array;
};

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

/** Transaction intake (only `flashnode dev` has one). */
export type TransactionSink = {
  submit(raw: Uint8Array): Promise<{ hash: string }>;
  /** The sequencer's pool (absent where transactions are only forwarded: a replica). */
  poolContent?(): Promise<PoolContent>;
  /** The pool's next nonce for a sender (its contiguous run of accepted txs), if it has any. */
  poolNonce(address: Uint8Array): bigint | undefined;
  /** Seals the block being built now (anvil's evm_mine); the sealed block's number. */
  mine(): Promise<number>;
  /**
   * Resolves when transaction lookups can see the transaction (pre-confirmed, or sealed when
   * lookups see only sealed blocks), or with false at the deadline.
   */
  waitForReceipt(hash: Uint8Array, timeoutMs: number): Promise<boolean>;
};

export type CallRequest = {
  readonly from: Uint8Array | undefined;
  readonly to: Uint8Array | undefined;
  readonly gas: bigint | undefined;
  readonly gasPrice: bigint | undefined;
  readonly maxFeePerGas: bigint | undefined;
  readonly maxPriorityFeePerGas: bigint | undefined;
  readonly value: bigint | undefined;
  readonly data: Uint8Array | undefined;
  readonly nonce: bigint | undefined;
  readonly accessList:
    | ReadonlyArray<{ address: Uint8Array; storageKeys: Uint8Array[] }>
    | undefined;
  /** EIP-7702 authorizations, making the call a type-4 transaction. */
  readonly authorizationList:
    | ReadonlyArray<{
        chainId: bigint;
        address: Uint8Array;
        nonce: bigint;
        yParity: bigint;
        r: bigint;
        s: bigint;
      }>
    | undefined;
};

/** Where a call runs: a sealed block's state, or the pending block over its parent. */
export type CallTarget = { readonly number: number; readonly pending: boolean };

export type CallResult =
  | { readonly ok: true; readonly returnData: Uint8Array; readonly gasUsed: bigint }
  | {
      readonly ok: false;
      readonly reverted: boolean;
      readonly returnData: Uint8Array;
      readonly error: string;
    };

/** eth_createAccessList's answer: the list, the gas the call used with it, its failure if any. */
export type AccessListResult = {
  readonly accessList: ReadonlyArray<{ address: Uint8Array; storageKeys: Uint8Array[] }>;
  readonly gasUsed: bigint;
  /** The call's error with the list (geth's vm error text), when it failed. */
  readonly error: string | undefined;
};

/** geth's TraceConfig, parsed; the tracer and its config are checked where the trace runs. */
export type TraceOptions = {
  /** The tracer's name; undefined: the struct logger. */
  readonly tracer: string | undefined;
  readonly enableMemory: boolean;
  readonly disableStack: boolean;
  readonly disableStorage: boolean;
  readonly enableReturnData: boolean;
  readonly limit: number;
  /** `tracerConfig` as given (a JSON value); undefined when absent. */
  readonly tracerConfig: unknown;
  /** A Go duration ("5s" when absent). */
  readonly timeout: string | undefined;
};

/** What a trace replays: a block's transactions, or one of them, or a call. */
export type TraceRequest =
  | { readonly kind: "block"; readonly number: number }
  /** The pre-confirmed block as the RPC thread sees it (the worker's copy may lag). */
  | {
      readonly kind: "pendingBlock";
      readonly base: PendingBase;
      readonly transactions: readonly PendingTransaction[];
    }
  | { readonly kind: "transaction"; readonly number: number; readonly index: number }
  | {
      readonly kind: "call";
      readonly request: CallRequest;
      readonly number: number;
      /** Run after this many of the block's transactions, on its parent's state (geth's txIndex). */
      readonly txIndex: number | undefined;
    };

export type Withdrawal = {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Uint8Array;
  /** In gwei. */
  readonly amount: bigint;
};

/** testing_buildBlockV1's block: on `parent` (the head), from the payload attributes. */
export type BuildBlockRequest = {
  readonly parent: number;
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
  readonly prevRandao: Uint8Array;
  readonly feeRecipient: Uint8Array;
  /** Undefined: none given (JSON null or absent), which from Shanghai on means an empty list. */
  readonly withdrawals: readonly Withdrawal[] | undefined;
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
  /** Signed transactions; a blob transaction may carry its sidecar (network form). */
  readonly transactions: readonly Uint8Array[];
  /** Taken from the pool: one that cannot run is left out (geth's miner), not an error. */
  readonly fromPool: boolean;
  readonly extraData: Uint8Array;
};

/** The built block, not stored anywhere: what an execution payload envelope is made of. */
export type BuiltPayload = {
  readonly headerRlp: Uint8Array;
  /** As the block holds them (blob transactions without their sidecars). */
  readonly transactions: readonly Uint8Array[];
  readonly withdrawals: readonly Withdrawal[] | undefined;
  /** What the fee recipient earns: the priority fees. */
  readonly blockValue: bigint;
  readonly blobs: {
    readonly commitments: readonly Uint8Array[];
    readonly proofs: readonly Uint8Array[];
    readonly blobs: readonly Uint8Array[];
  };
  /** EIP-7685 requests (type byte ‖ data, empty ones left out); undefined before Prague. */
  readonly requests: readonly Uint8Array[] | undefined;
};

export type CallService = {
  call(request: CallRequest, target: CallTarget): Promise<CallResult>;
  estimateGas(request: CallRequest, target: CallTarget): Promise<bigint>;
  createAccessList(request: CallRequest, target: CallTarget): Promise<AccessListResult>;
  /** debug_trace*: the trace as JSON text (a block's: `[{txHash, result}]`). */
  trace(request: TraceRequest, options: TraceOptions): Promise<string>;
  /** Builds a block without storing it (testing_buildBlockV1). */
  buildBlock(request: BuildBlockRequest): Promise<BuiltPayload>;
  /** eth_simulateV1 on top of the target block (its limits are checked before). */
  simulate(request: SimulateRequest, target: CallTarget): Promise<SimulatedBlock[]>;
};

/** Merkle proofs from the archive's state trie nodes (eth_getProof). */
export type ProofService = {
  /** The account's proof under `stateRoot`, and its storage root (undefined: no account). */
  account(
    stateRoot: Uint8Array,
    address: Uint8Array,
  ): Promise<{ proof: Uint8Array[]; storageRoot: Uint8Array | undefined }>;
  /** A storage slot's proof under the account's storage root. */
  storage(storageRoot: Uint8Array, slot: Uint8Array): Promise<Uint8Array[]>;
  /** Whether the archive holds the trie nodes of this state root (proofs can be made there). */
  holds(stateRoot: Uint8Array): boolean;
};

/** Installed filters (eth_newFilter & co.): state the node keeps and clients poll. */
export type FilterService = {
  newLogFilter(criteria: FilterCriteria): string;
  newBlockFilter(): string;
  newPendingTransactionFilter(): string;
  /** What the filter gathered since its last poll (JSON texts); undefined: no such filter. */
  changes(id: string): string[] | undefined;
  /** A log filter's criteria; undefined: no such log filter. */
  logCriteria(id: string): FilterCriteria | undefined;
  uninstall(id: string): boolean;
};

export type RpcBackend = {
  readonly chainId: bigint;
  /** The genesis config's fork schedule (eth_config). */
  readonly forks: ForkSchedule;
  readonly chain: ChainReader;
  readonly state: StateReader;
  readonly decoder: BlockDecoder;
  readonly clientVersion: string;
  /** The newest pre-confirmed block, if any (may trail a just-sealed head; see resolveBlock). */
  readonly pending: () => PendingBlock | undefined;
  /** The safe and finalized block numbers for a head (never above it). */
  readonly forkchoice: (head: number) => SafeAndFinalized;
  /** eth_getLogs and filters: geth's query and range limits. */
  readonly logLimits: LogQueryLimits;
  /** Merkle proofs; absent on a node without trie nodes. */
  readonly proofs: ProofService | undefined;
  /** Installed filters; absent: the filter methods answer as for an unknown filter. */
  readonly filters: FilterService | undefined;
  readonly transactions: TransactionSink | undefined;
  readonly calls: CallService | undefined;
  /**
   * Whether transaction lookups (eth_getTransactionReceipt, eth_getTransactionByHash) answer for
   * pre-confirmed transactions (Base's behaviour) or only once they are sealed (dev's
   * `--receipts sealed`, for tools that take a receipt to mean `latest` includes it).
   */
  readonly preconfirmedReceipts: boolean;
  /**
   * Recent pre-confirmation and seal times (flashnode_* methods, the live page); absent on a node
   * that follows no flashblocks stream (`serve`).
   */
  readonly timeline?: TimelineReader;
};
