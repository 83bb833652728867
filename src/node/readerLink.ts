// A reader process's side of a node served by several (`--rpc-workers`): its channel to the
// primary (src/util/channel.ts over cluster IPC). Through it the reader follows the chain's
// updates, hands over transactions and dev requests, shares its rate limiters and metrics, and
// runs the filter polls other readers forward to it. If the primary goes, the reader goes.
import type { Registry } from "prom-client";
import type { RateLimiter } from "../edge/rateLimit.ts";
import type { ChainUpdate } from "../pending/types.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import { Channel, processEndpoint } from "../util/channel.ts";
import {
  decodeUpdates,
  type PrimaryApi,
  type ReaderApi,
  type SourceHealth,
} from "./readerProtocol.ts";

/** How often a reader tells the others what its limiters took. */
export const SPENT_INTERVAL_MS = 20;
/** Transactions and dev requests: the primary answers within this (the source's own limits). */
const REQUEST_DEADLINE_MS = 60_000;
/** A filter poll forwarded to another reader (through the primary). */
const FILTER_DEADLINE_MS = 10_000;

export type JoinAnswer = PrimaryApi["requests"]["join"]["reply"];

export type ReaderLink = {
  /** How many readers serve the node, and which one this is. */
  readonly readers: number;
  readonly slot: number;
  /** Starts following: the block so far, then `onUpdates` for each new one. */
  join(): Promise<JoinAnswer>;
  onUpdates(listener: (updates: readonly ChainUpdate[], sentAt: number) => void): void;
  onPoolNonces(listener: (entries: ReadonlyArray<readonly [string, bigint]>) => void): void;
  onHealth(listener: (health: SourceHealth) => void): void;
  /** This reader has applied one more of the primary's state events. */
  applied(): void;
  submit(raw: Uint8Array): Promise<{ hash: string }>;
  mine(): Promise<number>;
  poolContent(): Promise<PoolContent>;
  control(request: DevRequest): Promise<DevAnswer>;
  /** Resolves once every reader shows what this one does now. */
  settle(): Promise<void>;
  /** The whole node's Prometheus text (every reader's registry, summed). */
  metricsText(): Promise<string>;
  /** Lets the primary read this reader's registry. */
  serveRegistry(registry: Registry): void;
  /** Shares what these limiters take with the other readers, and charges theirs here. */
  shareLimiters(limiters: ReadonlyMap<string, RateLimiter>): void;
  listening(url: string, dedicatedUrl: string): void;
  /** Runs a filter method on the reader `slot` that holds the filter: its result as JSON text. */
  callFilter(slot: number, method: string, filterId: string): Promise<string>;
  /** How this reader runs the filter calls other readers forward to it. */
  serveFilterCalls(run: (method: string, filterId: string) => Promise<string>): void;
  /** Resolves when the primary is gone (the reader then exits): why. */
  whenGone(): Promise<Error>;
  close(): void;
};

export function connectToPrimary(readers: number, slot: number): ReaderLink {
  const channel = new Channel<PrimaryApi, ReaderApi>(processEndpoint(), {
    peer: "the primary",
    deadlineMs: REQUEST_DEADLINE_MS,
  });
  let limiters: ReadonlyMap<string, RateLimiter> = new Map();
  channel.on("charge", (entries) => {
    for (const [name, key, tokens] of entries) limiters.get(name)?.charge(key, tokens);
  });
  let applied = 0;
  let ackQueued = false;
  const timer = setInterval(() => {
    const entries: Array<readonly [string, string, number]> = [];
    for (const [name, limiter] of limiters)
      for (const [key, tokens] of limiter.drainTaken()) entries.push([name, key, tokens]);
    if (entries.length > 0) channel.emit("spent", entries);
  }, SPENT_INTERVAL_MS);
  timer.unref();
  return {
    readers,
    slot,
    join: () => channel.request("join", null),
    onUpdates: (l) =>
      channel.on("updates", (bytes) => {
        const m = decodeUpdates(bytes);
        l(m.updates, m.sentAt);
      }),
    onPoolNonces: (l) => channel.on("poolNonces", l),
    onHealth: (l) => channel.on("health", l),
    applied() {
      applied++;
      // One acknowledgement per run of events, not one per event.
      if (ackQueued) return;
      ackQueued = true;
      setImmediate(() => {
        ackQueued = false;
        channel.emit("applied", applied);
      });
    },
    submit: (raw) => channel.request("submit", raw).then((hash) => ({ hash })),
    mine: () => channel.request("mine", null),
    poolContent: () => channel.request("pool", null),
    control: (request) => channel.request("control", request),
    settle: () => channel.request("settle", null).then(() => {}),
    metricsText: () => channel.request("metrics", null),
    serveRegistry(registry) {
      channel.handle("registry", () => registry.getMetricsAsJSON());
    },
    shareLimiters(l) {
      limiters = l;
    },
    listening(url, dedicatedUrl) {
      channel.emit("listening", { url, dedicatedUrl });
    },
    callFilter: (to, method, filterId) =>
      channel.request("filterCall", { slot: to, method, filterId }, FILTER_DEADLINE_MS),
    serveFilterCalls(run) {
      channel.handle("filterCall", ({ method, filterId }) => run(method, filterId));
    },
    whenGone: () => channel.whenGone(),
    close() {
      clearInterval(timer);
      channel.close("the reader is stopping");
    },
  };
}
