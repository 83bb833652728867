// Installed filters (eth_newFilter & co., feed/filters.ts) and the log query's criteria and
// limits, shared by eth_getLogs, the filters and the subscriptions.
import type { BlockNumberSelector } from "./blockSelector.ts";

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

/** A filter object as geth's FilterCriteria.UnmarshalJSON reads it (before any range check). */
export type FilterCriteria = {
  readonly blockHash: Uint8Array | undefined;
  readonly fromBlock: BlockNumberSelector | undefined;
  readonly toBlock: BlockNumberSelector | undefined;
  /** undefined: any address; `count` as given (duplicates included), for the query limit. */
  readonly addresses: { readonly keys: ReadonlySet<string>; readonly count: number } | undefined;
  /** One entry per position; undefined: wildcard. */
  readonly topics: readonly (ReadonlySet<string> | undefined)[];
  readonly topicCounts: readonly number[];
};

/** geth's `--rpc.logquery-limit` and `--rpc.rangelimit` (0: none). */
export type LogQueryLimits = {
  /** Addresses, or alternatives in one topic position. */
  readonly queryLimit: number;
  /** Blocks a range may span (to − from). */
  readonly rangeLimit: number;
};

export const DEFAULT_LOG_LIMITS: LogQueryLimits = { queryLimit: 1000, rangeLimit: 0 };
