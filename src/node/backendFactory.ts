// Builds the RPC layer's view of a chain: read interfaces plus whatever services the node has.

import { decodeBlock, decodeFees, decodeHeader, decodeTransaction } from "../chain/blockView.ts";
import { ForkSchedule } from "../chain/ethConfig.ts";
import { type SafeAndFinalized, storedForkchoice } from "../chain/forkchoice.ts";
import type { ChainSpec } from "../chain/genesis.ts";
import {
  blockRlp,
  bodyCounts,
  bodyRlpOf,
  bodyTransactions,
  bodyUncles,
  receiptRlp,
} from "../chain/rawEncoding.ts";
import { createProofService } from "../exec/proofs.ts";
import { createFilterManager } from "../feed/filters.ts";
import type { ChainFeed } from "../feed/types.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import { pendingBlockView, pendingHeaderRlp } from "../pending/pendingView.ts";
import type { TimelineReader } from "../pending/txTimeline.ts";
import type { RpcBackend } from "../services/backend.ts";
import type { CallService } from "../services/calls.ts";
import { DEFAULT_LOG_LIMITS, type LogQueryLimits } from "../services/filters.ts";
import type { DevSigner } from "../services/signer.ts";
import type { TransactionSink } from "../services/transactions.ts";
import type { ChainReader, ChainStore, StateReader } from "../store/archive.ts";
import { CLIENT_VERSION } from "../version.ts";

export function createBackend(
  spec: ChainSpec,
  store: ChainStore,
  services: {
    readonly pending?: () => PendingBlock | undefined;
    /**
     * The head RPC shows, where the node follows a stream (its chain view's): it moves with the
     * pending view, never ahead of it. Absent: the archive's own head.
     */
    readonly head?: () => number | undefined;
    readonly transactions?: TransactionSink;
    readonly signer?: DevSigner;
    readonly calls?: CallService;
    readonly forkchoice?: (head: number) => SafeAndFinalized;
    readonly preconfirmedReceipts?: boolean;
    readonly logLimits?: LogQueryLimits;
    /** What installed filters follow (absent on a node whose chain does not move). */
    readonly feed?: ChainFeed;
    readonly timeline?: TimelineReader;
    /** web3_clientVersion (default: CLIENT_VERSION). */
    readonly clientVersion?: string;
    /** This reader's slot of the node's --rpc-workers (filter ids name it); 0 by default. */
    readonly readerSlot?: number;
    /** State reads other than the archive's own (a fork's: the upstream's beyond its writes). */
    readonly state?: StateReader;
    readonly fork?: RpcBackend["fork"];
  } = {},
): RpcBackend {
  const common = spec.common;
  return {
    chainId: spec.chainId,
    forks: new ForkSchedule(
      spec.genesisJson.config as unknown as Readonly<Record<string, unknown>>,
    ),
    chain: services.head === undefined ? store : chainAsOf(store, services.head),
    firstBlock: store.forkBase()?.number ?? 0,
    ...(services.fork === undefined ? {} : { fork: services.fork }),
    state: services.state ?? store,
    decoder: {
      header: (rlp) => decodeHeader(common, rlp),
      block: (headerRlp, bodyRlp) => decodeBlock(common, headerRlp, bodyRlp),
      transaction: (raw) => decodeTransaction(common, raw),
      pendingBlock: (block) => pendingBlockView(common, block),
      fees: (rlp) => decodeFees(common, rlp),
      bodyCounts,
      bodyTransactions,
      bodyUncles,
      blockRlp,
      receiptRlp,
      pendingHeaderRlp: (block) => pendingHeaderRlp(common, block),
      pendingBodyRlp: (block) => bodyRlpOf(block.transactions.map((t) => t.raw)),
    },
    clientVersion: services.clientVersion ?? CLIENT_VERSION,
    pending: services.pending ?? (() => undefined),
    forkchoice: services.forkchoice ?? storedForkchoice(() => store.forkchoice()),
    transactions: services.transactions,
    signer: services.signer,
    calls: services.calls,
    preconfirmedReceipts: services.preconfirmedReceipts ?? true,
    logLimits: services.logLimits ?? DEFAULT_LOG_LIMITS,
    filters: createFilterManager(services.feed, { slot: services.readerSlot ?? 0 }),
    proofs: createProofService(common, store),
    ...(services.timeline === undefined ? {} : { timeline: services.timeline }),
  };
}

/**
 * The archive as the chain view has shown it: its head, and nothing of a block above it (the
 * archive may already hold the next block, committed before its seal reached the chain view; it
 * is shown with that seal, together with the next pending block, never before).
 */
function chainAsOf(store: ChainStore, head: () => number | undefined): ChainReader {
  const shown = (n: number | undefined) => n !== undefined && n <= (head() ?? -1);
  return {
    ...store,
    headNumber: head,
    canonicalHash: (n) => (shown(n) ? store.canonicalHash(n) : undefined),
    blockNumber(hash) {
      const n = store.blockNumber(hash);
      return shown(n) ? n : undefined;
    },
    transactionLocation(hash) {
      const at = store.transactionLocation(hash);
      return at !== undefined && shown(at.number) ? at : undefined;
    },
  };
}
