// What the RPC layer asks of a forked chain's upstream about its past: blocks, receipts,
// transactions and logs at or below the fork block F (as the upstream sent them, OP-stack fields
// untouched), calls answered as of a block at or below F, and the state at F its own reads miss.
// Implemented by upstream/forkReads.ts, through the datadir's cache.
import type { ForkBase, UpstreamState } from "./upstreamState.ts";

/** A JSON object as the upstream sent it. */
export type UpstreamJson = { readonly [field: string]: unknown };

/** A log query's range at or below F, with its parsed criteria. */
export type UpstreamLogFilter = {
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
  readonly addresses?: readonly Uint8Array[];
  readonly topics?: readonly (readonly Uint8Array[] | undefined)[];
};

export type ForkHistoryService = {
  readonly base: ForkBase;
  readonly state: UpstreamState;
  /** F's ancestor at `number` (null above F). */
  blockByNumber(number: bigint, fullTx: boolean): Promise<UpstreamJson | null>;
  /** A block at or below F by hash (null otherwise). */
  blockByHash(hash: Uint8Array, fullTx: boolean): Promise<UpstreamJson | null>;
  blockReceipts(blockHash: Uint8Array): Promise<readonly UpstreamJson[] | null>;
  /** A transaction, or its receipt, in a block at or below F (null otherwise). */
  transaction(hash: Uint8Array): Promise<UpstreamJson | null>;
  receipt(hash: Uint8Array): Promise<UpstreamJson | null>;
  logs(filter: UpstreamLogFilter): Promise<readonly UpstreamJson[]>;
  /** A call the upstream answers as of a block at or below F (pinned by hash in `params`). */
  forward(method: string, params: readonly unknown[]): Promise<unknown>;
};
