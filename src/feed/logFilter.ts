// The `logs` subscription filter with geth's parsing and matching rules
// (eth/filters/api.go FilterCriteria.UnmarshalJSON, filter_system.go SubscribeLogs,
// filter.go filterLogs): positional topics, null = wildcard, nested arrays = OR.

import {
  checkQueryLimit,
  LOG_QUERY_LIMIT,
  matchesCriteria,
  parseFilterCriteria,
} from "../rpc/filterCriteria.ts";
import type { BlockNumberSelector } from "../services/blockSelector.ts";
import { InvalidParamsError } from "../services/errors.ts";
import type { FilterCriteria } from "../services/filters.ts";
import type { LogEvent } from "./types.ts";

/** A parsed filter, ready to match: the criteria plus inclusive numeric bounds (tags set none,
 * as geth, which skips negative bounds). */
export type LogFilter = Pick<FilterCriteria, "addresses" | "topics"> & {
  readonly fromBlock: bigint | undefined;
  readonly toBlock: bigint | undefined;
};

/** geth rpc.BlockNumber as an int64: tags are negative. */
function blockNumberValue(sel: BlockNumberSelector | undefined): bigint {
  if (sel === undefined) return -2n; // latest
  if (sel.kind === "number") return sel.number;
  switch (sel.tag) {
    case "earliest":
      return -5n;
    case "safe":
      return -4n;
    case "finalized":
      return -3n;
    case "latest":
      return -2n;
    case "pending":
      return -1n;
  }
}

/**
 * The second `eth_subscribe("logs", …)` argument (null or missing: match everything). A block
 * hash is accepted and ignored: a subscription only sees new blocks (geth).
 */
export function parseLogFilter(raw: unknown): LogFilter {
  const c = parseFilterCriteria(raw, 1);
  return logFilterOf(
    c.blockHash === undefined ? c : { ...c, fromBlock: undefined, toBlock: undefined },
  );
}

/**
 * SubscribeLogs: query limits and the block range a live subscription or an installed filter
 * accepts. geth refuses pending bounds; installed filters here take them (`allowPending`: the
 * pre-confirmed block's logs), subscriptions keep geth's refusal.
 */
export function logFilterOf(c: FilterCriteria, allowPending = false): LogFilter {
  checkQueryLimit(c, LOG_QUERY_LIMIT);
  let from = blockNumberValue(c.fromBlock);
  let to = blockNumberValue(c.toBlock);
  if (from === -1n || to === -1n) {
    if (!allowPending) throw new InvalidParamsError("pending logs are not supported");
    // An open top end: what arrives from now on.
    if (from === -1n) from = -2n;
    if (to === -1n) to = -2n;
  }
  if (from === -5n) from = 0n; // earliest → the history cutoff (no pruning here)
  const latest = -2n;
  const ok =
    (from === latest && to === latest) ||
    (from >= 0n && to >= 0n && to >= from) ||
    (from >= 0n && to === latest);
  if (!ok) throw new InvalidParamsError("invalid block range params");
  // filterLogs ignores negative bounds, so "earliest" as fromBlock sets no lower bound.
  return {
    addresses: c.addresses,
    topics: c.topics,
    fromBlock: c.fromBlock?.kind === "number" ? c.fromBlock.number : undefined,
    toBlock: c.toBlock?.kind === "number" ? c.toBlock.number : undefined,
  };
}

const BLOCK_NUMBER_KEY = '"blockNumber":"';

/** The log's block number from its rendered JSON (LogEvent carries none); undefined if absent. */
export function logBlockNumber(json: string): bigint | undefined {
  const at = json.indexOf(BLOCK_NUMBER_KEY);
  if (at < 0) return undefined;
  const start = at + BLOCK_NUMBER_KEY.length;
  const end = json.indexOf('"', start);
  if (end < 0) return undefined;
  try {
    return BigInt(json.slice(start, end));
  } catch {
    return undefined;
  }
}

/** geth filterLogs' check for one log. */
export function matchLog(filter: LogFilter, log: LogEvent): boolean {
  if (filter.fromBlock !== undefined || filter.toBlock !== undefined) {
    const n = logBlockNumber(log.json);
    if (n !== undefined) {
      if (filter.fromBlock !== undefined && filter.fromBlock > n) return false;
      if (filter.toBlock !== undefined && filter.toBlock < n) return false;
    }
  }
  return matchesCriteria(filter, log.address, log.topics);
}
