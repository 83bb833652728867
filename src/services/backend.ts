// What RPC handlers may use: read interfaces of the chain, state and pending block, and the
// sequencer/call services (the other files of services/); never the store or the VM themselves.

import type { BlockView, FeeView, HeaderView, TransactionView } from "../chain/blockView.ts";
import type { ForkSchedule } from "../chain/ethConfig.ts";
import type { SafeAndFinalized } from "../chain/forkchoice.ts";
import type { ReceiptRecord } from "../chain/types.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import type { TimelineReader } from "../pending/txTimeline.ts";
import type { ChainReader, StateReader } from "../store/archive.ts";
import type { CallService } from "./calls.ts";
import type { FilterService, LogQueryLimits } from "./filters.ts";
import type { ProofService } from "./proofs.ts";
import type { DevSigner } from "./signer.ts";
import type { TransactionSink } from "./transactions.ts";

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

export type RpcBackend = {
  readonly chainId: bigint;
  /** The genesis config's fork schedule (eth_config). */
  readonly forks: ForkSchedule;
  readonly chain: ChainReader;
  /** The chain's first block of its own: 0, or a fork's base block F (the past is upstream). */
  readonly firstBlock: number;
  /** A chain forked from a live one (dev --fork-url, follow): where from (anvil_nodeInfo). */
  readonly fork?: {
    readonly chainId: bigint;
    readonly number: number;
    readonly hash: Uint8Array;
    /** The upstream's scheme and host only: a provider may carry its key in the path. */
    readonly origin: string;
    readonly retryBackoffMs: number;
  };
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
  /** The test accounts' keys (dev only; none on an imported chain's). */
  readonly signer: DevSigner | undefined;
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
