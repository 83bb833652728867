// Installed filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter), polled
// over HTTP with eth_getFilterChanges, as geth keeps them: each gathers what happened since its
// last poll and is dropped after five minutes without one. On a flashblocks chain a log filter
// whose range is open at the top (no toBlock, or "pending") reports a log when its transaction
// is pre-confirmed (block hash 32 zero bytes, the pending block's number), and does not report it
// again when the block seals; any other log filter reports sealed blocks' logs only, as geth's.

import { randomBytes } from "node:crypto";
import { followsPending } from "../rpc/filterCriteria.ts";
import type { FilterCriteria, FilterService } from "../services/filters.ts";
import { type Clock, systemClock } from "../util/clock.ts";
import { type LogFilter, logFilterOf, matchLog } from "./logFilter.ts";
import type { ChainFeed, LogEvent, Unsubscribe } from "./types.ts";

/** geth's filter deadline: a filter not polled for this long is dropped. */
export const FILTER_TIMEOUT_MS = 5 * 60_000;
/** Items a filter keeps between two polls; older ones are dropped first. */
export const FILTER_BUFFER_LIMIT = 10_000;
const SWEEP_MS = 5_000;

type Installed = {
  readonly kind: "logs" | "blocks" | "transactions";
  items: string[];
  deadline: number;
  readonly criteria?: FilterCriteria;
  readonly match?: LogFilter;
  /** Reports pre-confirmed logs (a range open at the top). */
  readonly live?: boolean;
  /** Transactions whose logs this filter reported pre-confirmed, for the block being built. */
  preconfirmed?: { block: number; transactions: Set<string> } | undefined;
};

export type FilterManager = FilterService & { close(): void };

/** Readers a filter id can name (`--rpc-workers` allows at most 64). */
const MAX_OWNERS = 64;

/**
 * A filter id in geth's format (16 bytes as a hex quantity) whose first byte names the reader
 * process that holds the filter (0x10 + slot): a poll that reaches another reader of the node is
 * forwarded to it.
 */
export function newFilterId(slot: number): string {
  return `0x${(0x10 + slot).toString(16)}${randomBytes(15).toString("hex")}`;
}

/** The reader slot a filter id names, if it is one of ours. */
export function filterOwner(id: string): number | undefined {
  if (id.length !== 34 || !id.startsWith("0x")) return undefined;
  const slot = Number.parseInt(id.slice(2, 4), 16) - 0x10;
  return slot >= 0 && slot < MAX_OWNERS ? slot : undefined;
}

export function createFilterManager(
  feed: ChainFeed | undefined,
  opts: {
    readonly timeoutMs?: number;
    readonly slot?: number;
    /** The expiry's clock (tests step a fake one). */
    readonly clock?: Clock;
  } = {},
): FilterManager {
  const timeoutMs = opts.timeoutMs ?? FILTER_TIMEOUT_MS;
  const slot = opts.slot ?? 0;
  const filters = new Map<string, Installed>();
  const clock = opts.clock ?? systemClock;
  const now = () => clock.now();
  const push = (f: Installed, items: readonly string[]) => {
    if (items.length === 0) return;
    f.items.push(...items);
    if (f.items.length > FILTER_BUFFER_LIMIT)
      f.items.splice(0, f.items.length - FILTER_BUFFER_LIMIT);
  };
  const install = (f: Omit<Installed, "items" | "deadline">): string => {
    let id = newFilterId(slot);
    while (filters.has(id)) id = newFilterId(slot);
    filters.set(id, { ...f, items: [], deadline: now() + timeoutMs });
    return id;
  };
  const matching = (f: Installed, logs: readonly LogEvent[], skip?: Set<string>) =>
    logs.filter((l) => !skip?.has(l.transactionHash) && matchLog(f.match!, l)).map((l) => l.json);

  const stops: Unsubscribe[] = [];
  if (feed !== undefined) {
    stops.push(
      feed.onNewHead((head) => {
        for (const f of filters.values())
          if (f.kind === "blocks") push(f, [JSON.stringify(head.hash)]);
      }),
      feed.onLogs((logs) => {
        for (const f of filters.values()) {
          if (f.kind !== "logs") continue;
          // Logs already reported pre-confirmed are the same logs (a block seals exactly what its
          // flashblocks published): not reported twice. Removed ones are all reported.
          const removed = logs[0]?.removed === true;
          push(f, matching(f, logs, removed ? undefined : f.preconfirmed?.transactions));
          f.preconfirmed = undefined;
        }
      }),
      feed.onPreconfirmed((event) => {
        for (const f of filters.values()) {
          if (f.kind === "transactions")
            push(
              f,
              event.transactionHashes.map((h) => `"${h}"`),
            );
          else if (f.kind === "logs" && f.live === true) {
            const found = matching(f, event.logs);
            if (found.length === 0) continue;
            if (f.preconfirmed?.block !== event.blockNumber)
              f.preconfirmed = { block: event.blockNumber, transactions: new Set() };
            for (const l of event.logs) f.preconfirmed.transactions.add(l.transactionHash);
            push(f, found);
          }
        }
      }),
    );
  }
  const sweepMs = Math.min(SWEEP_MS, timeoutMs);
  const sweep = () => {
    stopSweep = clock.schedule(sweep, sweepMs);
    const t = now();
    for (const [id, f] of filters) if (f.deadline < t) filters.delete(id);
  };
  let stopSweep = clock.schedule(sweep, sweepMs);

  return {
    newLogFilter(criteria) {
      return install({
        kind: "logs",
        criteria,
        match: logFilterOf(criteria, true),
        live: followsPending(criteria),
      });
    },
    newBlockFilter: () => install({ kind: "blocks" }),
    newPendingTransactionFilter: () => install({ kind: "transactions" }),
    changes(id) {
      const f = filters.get(id);
      if (f === undefined) return undefined;
      f.deadline = now() + timeoutMs;
      const items = f.items;
      f.items = [];
      return items;
    },
    logCriteria(id) {
      const f = filters.get(id);
      return f?.kind === "logs" ? f.criteria : undefined;
    },
    uninstall: (id) => filters.delete(id),
    close() {
      stopSweep();
      for (const stop of stops) stop();
      filters.clear();
    },
  };
}
