// The reader side of a node served by several processes (node:cluster workers, `--rpc-workers`):
// rate limits shared with the other readers through the primary, and the node-wide /metrics.
// The messages of stream readers (`dev`'s and a replica's: the chain stream, transactions, a
// replica's lag) are here too: one protocol.
import { AggregatorRegistry, type Registry } from "prom-client";
import type { RateLimiter } from "../edge/rateLimit.ts";
import type { ChainUpdate } from "../pending/types.ts";
import { RpcError, type RpcErrorObject, ServerError, toRpcError } from "../services/errors.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";

/** Messages between the primary (readerCluster.ts) and its readers. */
export type ReaderMessage =
  | { readonly type: "flashnode:listening"; readonly url: string; readonly dedicatedUrl: string }
  /** Tokens a reader's limiters took: [limiter name, client key, tokens]. */
  | { readonly type: "flashnode:spent"; readonly entries: ReadonlyArray<[string, string, number]> }
  | { readonly type: "flashnode:metrics"; readonly id: number }
  /** A stream reader asks for the chain stream: the current block's updates so far, then each new one. */
  | { readonly type: "flashnode:follow" }
  /** A stream reader hands a transaction (or evm_mine) to the primary (the sequencer, or a replica's forwarder). */
  | { readonly type: "flashnode:submit"; readonly id: number; readonly raw: Uint8Array }
  | { readonly type: "flashnode:mine"; readonly id: number }
  /** A stream reader asks what the sequencer's pool holds (txpool_*, testing_buildBlockV1). */
  | { readonly type: "flashnode:pool"; readonly id: number }
  /** A stream reader's dev method (anvil_setBalance, evm_revert…) for the sequencer. */
  | { readonly type: "flashnode:control"; readonly id: number; readonly request: DevRequest }
  /** A filter poll for the filter another reader holds: routed by the primary to `slot`. */
  | FilterCall
  | FilterReply;

/** A call of a filter method, run by the reader that holds the filter. */
export type FilterCall = {
  readonly type: "flashnode:filterCall";
  readonly id: number;
  /** The reader that asked, and the one that holds the filter. */
  readonly from: number;
  readonly slot: number;
  readonly method: string;
  readonly filterId: string;
};

export type FilterReply = {
  readonly type: "flashnode:filterReply";
  readonly id: number;
  readonly from: number;
  /** The result as JSON text; or the error as the holder gave it. */
  readonly json?: string;
  readonly error?: RpcErrorObject;
};

export type PrimaryMessage =
  | { readonly type: "flashnode:charge"; readonly entries: ReadonlyArray<[string, string, number]> }
  | { readonly type: "flashnode:metricsText"; readonly id: number; readonly text: string }
  | {
      readonly type: "flashnode:updates";
      readonly updates: readonly ChainUpdate[];
      /** When the primary sent a live update (epoch ms); absent on a joining reader's replay. */
      readonly sentAt?: number;
    }
  /** Senders' next pool nonces ([address hex without 0x, nonce]). */
  | {
      readonly type: "flashnode:poolNonces";
      readonly entries: ReadonlyArray<readonly [string, bigint]>;
    }
  | {
      readonly type: "flashnode:reply";
      readonly id: number;
      /** The transaction hash or mined block number; or the sequencer's refusal, as it gave it. */
      readonly value?: string;
      /** The answer to `flashnode:pool`. */
      readonly pool?: PoolContent;
      /** The answer to `flashnode:control`. */
      readonly dev?: DevAnswer;
      readonly error?: RpcErrorObject;
    }
  | FilterCall
  | FilterReply
  /** A replica's distance behind its block stream (sent as it changes, and every second). */
  | { readonly type: "flashnode:lag"; readonly blocks: number; readonly seconds: number };

/** A forwarded filter call not answered in this time (its reader died) finds no filter. */
const FILTER_CALL_TIMEOUT_MS = 5_000;

/** How often a reader tells the others what its limiters took. */
export const SPENT_INTERVAL_MS = 20;

export type ReaderLink = {
  /** How many readers serve the node. */
  readonly readers: number;
  /** The whole node's Prometheus text (every reader's registry, summed). */
  metricsText(): Promise<string>;
  /** Shares what these limiters take with the other readers, and charges theirs here. */
  shareLimiters(limiters: ReadonlyMap<string, RateLimiter>): void;
  listening(url: string, dedicatedUrl: string): void;
  /** Runs a filter method on the reader `slot` that holds the filter: its result as JSON text. */
  callFilter(slot: number, method: string, filterId: string): Promise<string>;
  /** How this reader runs the filter calls other readers forward to it. */
  serveFilterCalls(run: (method: string, filterId: string) => Promise<string>): void;
  close(): void;
};

function send(message: ReaderMessage): void {
  process.send?.(message);
}

export function readerLink(readers: number, registry: Registry, slot: number): ReaderLink {
  // The primary collects every reader's registry (prom-client's cluster protocol).
  AggregatorRegistry.setRegistries([registry]);
  new AggregatorRegistry();
  let nextId = 1;
  const scrapes = new Map<number, (text: string) => void>();
  let limiters: ReadonlyMap<string, RateLimiter> = new Map();
  const filterReplies = new Map<number, (m: FilterReply) => void>();
  let runFilter: (method: string, filterId: string) => Promise<string> = () =>
    Promise.reject(new Error("filters are not served"));
  const onMessage = (m: PrimaryMessage) => {
    if (m.type === "flashnode:filterCall") {
      const answer = (r: { json?: string; error?: RpcErrorObject }) =>
        send({ type: "flashnode:filterReply", id: m.id, from: m.from, ...r });
      // Never a synchronous throw in a message handler: it would end this reader.
      Promise.resolve()
        .then(() => runFilter(m.method, m.filterId))
        .then(
          (json) => answer({ json }),
          (e: unknown) => answer({ error: toRpcError(e) }),
        );
    } else if (m.type === "flashnode:filterReply") {
      filterReplies.get(m.id)?.(m);
      filterReplies.delete(m.id);
    } else if (m.type === "flashnode:metricsText") {
      scrapes.get(m.id)?.(m.text);
      scrapes.delete(m.id);
    } else if (m.type === "flashnode:charge") {
      for (const [name, key, tokens] of m.entries) limiters.get(name)?.charge(key, tokens);
    }
  };
  process.on("message", onMessage);
  const timer = setInterval(() => {
    const entries: Array<[string, string, number]> = [];
    for (const [name, limiter] of limiters)
      for (const [key, tokens] of limiter.drainTaken()) entries.push([name, key, tokens]);
    if (entries.length > 0) send({ type: "flashnode:spent", entries });
  }, SPENT_INTERVAL_MS);
  timer.unref();
  return {
    readers,
    metricsText() {
      const id = nextId++;
      return new Promise((resolve) => {
        scrapes.set(id, resolve);
        send({ type: "flashnode:metrics", id });
      });
    },
    shareLimiters(l) {
      limiters = l;
    },
    listening(url, dedicatedUrl) {
      send({ type: "flashnode:listening", url, dedicatedUrl });
    },
    callFilter(to, method, filterId) {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          filterReplies.delete(id);
          reject(new ServerError("filter not found"));
        }, FILTER_CALL_TIMEOUT_MS);
        filterReplies.set(id, (r) => {
          clearTimeout(timer);
          if (r.error !== undefined)
            reject(new RpcError(r.error.code, r.error.message, r.error.data));
          else resolve(r.json ?? "null");
        });
        send({ type: "flashnode:filterCall", id, from: slot, slot: to, method, filterId });
      });
    },
    serveFilterCalls(run) {
      runFilter = run;
    },
    close() {
      clearInterval(timer);
      process.off("message", onMessage);
    },
  };
}
