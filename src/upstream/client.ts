// JSON-RPC to a live chain over HTTP(S). Calls issued in one macrotask go out as one JSON-RPC batch
// (while the upstream takes batches), identical concurrent calls share one request, rate limits
// and gateway failures are retried with exponential backoff (Retry-After and body hints
// honoured), and every call ends within its budget with a typed, one-line error: whatever the
// upstream does, the node never crashes and never waits without bound (foundry #4894, #8495).
import type { Logger } from "../log/logger.ts";
import { type Entry, finalError, newCounters } from "./callEntry.ts";
import {
  type CallOptions,
  type CallOutcome,
  describeError,
  errorShape,
  type RpcCall,
  type UpstreamHooks,
  type UpstreamReachability,
  type UpstreamStats,
} from "./calls.ts";
import {
  backoffHintMs,
  isBatchRefusal,
  isMethodUnavailable,
  isRateLimitError,
} from "./classify.ts";
import {
  quoteBody,
  UpstreamCallError,
  type UpstreamError,
  type UpstreamErrorCode,
  UpstreamProtocolError,
  UpstreamUnavailableError,
  upstreamHost,
} from "./errors.ts";
import { type FailureClass, type FailureKind, postJson } from "./http.ts";
import {
  type BlockTag,
  hex,
  hexQuantity,
  isObject,
  parseBlock,
  parseQuantity,
  type RpcBlock,
} from "./json.ts";
import type { UpstreamOptions } from "./options.ts";
import { Reachability } from "./reachability.ts";

export class UpstreamClient {
  readonly host: string;
  private readonly o: UpstreamOptions;
  private readonly logger: Logger | undefined;
  private readonly hooks: UpstreamHooks;
  private readonly queue: Entry[] = [];
  private readonly inflight = new Map<string, Promise<unknown>>();
  private readonly live = new Set<Entry>();
  private readonly abort = new AbortController();
  private scheduled = false;
  private active = 0;
  private nextId = 1;
  private closed = false;
  private readonly reach: Reachability;
  private readonly counters = newCounters();

  constructor(options: UpstreamOptions, deps: { logger?: Logger; hooks?: UpstreamHooks } = {}) {
    this.o = options;
    this.host = upstreamHost(options.url);
    this.logger = deps.logger;
    this.hooks = deps.hooks ?? {};
    this.reach = new Reachability(() =>
      this.call("eth_chainId", [], { deadlineMs: Math.min(5_000, this.o.timeoutMs) }),
    );
  }

  /** One JSON-RPC call; its result as the upstream sent it. */
  call<T = unknown>(
    method: string,
    params: readonly unknown[],
    opts: CallOptions = {},
  ): Promise<T> {
    const key = `${method}\u0000${JSON.stringify(params)}`;
    const shared = this.inflight.get(key);
    if (shared !== undefined) {
      this.counters.deduplicated++;
      return shared as Promise<T>;
    }
    const p = new Promise<unknown>((resolve, reject) => {
      if (this.closed) {
        reject(
          new UpstreamUnavailableError(this.host, `the upstream client for ${this.host} is closed`),
        );
        return;
      }
      const budgetMs = Math.max(1, opts.deadlineMs ?? this.o.deadlineMs);
      const entry: Entry = {
        method,
        params,
        budgetMs,
        deadline: Date.now() + budgetMs,
        startedAt: performance.now(),
        attempt: 0,
        alone: false,
        done: false,
        last: undefined,
        timer: undefined,
        retryTimer: undefined,
        resolve,
        reject,
      };
      // Not unref'd: a call someone awaits keeps the process alive until it ends (a start that
      // awaits its upstream would otherwise end with an unsettled await, silently).
      entry.timer = setTimeout(() => this.expire(entry), budgetMs);
      this.live.add(entry);
      this.enqueue(entry);
    });
    this.inflight.set(key, p);
    const forget = () => this.inflight.delete(key);
    p.then(forget, forget);
    return p as Promise<T>;
  }

  /** Several calls, sent together; each call's outcome (one failing does not fail the rest). */
  async batch(calls: readonly RpcCall[], opts: CallOptions = {}): Promise<CallOutcome[]> {
    return Promise.all(
      calls.map((c) =>
        this.call(c.method, c.params, opts).then(
          (value): CallOutcome => ({ ok: true, value }),
          (error: UpstreamError): CallOutcome => ({ ok: false, error }),
        ),
      ),
    );
  }

  async chainId(opts?: CallOptions): Promise<bigint> {
    return parseQuantity(this.host, "eth_chainId", await this.call("eth_chainId", [], opts));
  }

  async blockNumber(opts?: CallOptions): Promise<bigint> {
    return parseQuantity(
      this.host,
      "eth_blockNumber",
      await this.call("eth_blockNumber", [], opts),
    );
  }

  async blockByNumber(
    at: bigint | BlockTag,
    fullTx: boolean,
    opts?: CallOptions,
  ): Promise<RpcBlock | null> {
    const id = typeof at === "bigint" ? hexQuantity(at) : at;
    const v = await this.call("eth_getBlockByNumber", [id, fullTx], opts);
    return parseBlock(this.host, "eth_getBlockByNumber", v);
  }

  async blockByHash(
    hash: Uint8Array,
    fullTx: boolean,
    opts?: CallOptions,
  ): Promise<RpcBlock | null> {
    const v = await this.call("eth_getBlockByHash", [hex(hash), fullTx], opts);
    return parseBlock(this.host, "eth_getBlockByHash", v);
  }

  /** A block's header fields (its transactions as hashes). */
  header(at: bigint | BlockTag | Uint8Array, opts?: CallOptions): Promise<RpcBlock | null> {
    return at instanceof Uint8Array
      ? this.blockByHash(at, false, opts)
      : this.blockByNumber(at, false, opts);
  }

  stats(): UpstreamStats {
    return { ...this.counters, errors: { ...this.counters.errors } };
  }

  /** Whether the upstream answers now (reachability.ts). */
  reachability(): UpstreamReachability {
    return this.reach.state();
  }

  /** Fails every call still waiting; later calls fail at once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.reach.close();
    this.abort.abort();
    const error = new UpstreamUnavailableError(
      this.host,
      `the upstream client for ${this.host} was closed`,
    );
    for (const entry of [...this.live]) this.fail(entry, error);
    this.queue.length = 0;
  }

  private enqueue(entry: Entry): void {
    if (entry.done) return;
    this.queue.push(entry);
    if (this.scheduled) return;
    this.scheduled = true;
    // setImmediate, not a microtask: everything one execution step asks for (an account's three
    // reads, a prefetch, the awaits of one request) joins the same batch.
    setImmediate(() => {
      this.scheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.queue.length > 0 && this.active < this.o.maxConcurrency) {
      let size = this.counters.batching === "no" ? 1 : this.o.maxBatchSize;
      const alone = this.queue.findIndex((e) => e.alone);
      if (alone === 0) size = 1;
      else if (alone > 0) size = Math.min(size, alone);
      const chunk = this.queue.splice(0, size).filter((e) => !e.done);
      if (chunk.length === 0) continue;
      this.active++;
      this.send(chunk).finally(() => {
        this.active--;
        this.pump();
      });
    }
  }

  private async send(chunk: Entry[]): Promise<void> {
    const asBatch = chunk.length > 1;
    const byId = new Map<string, Entry>();
    const bodies = chunk.map((entry) => {
      const id = this.nextId++;
      byId.set(String(id), entry);
      entry.attempt++;
      return { jsonrpc: "2.0", id, method: entry.method, params: entry.params };
    });
    this.counters.requests++;
    this.counters.calls += chunk.length;
    if (asBatch) this.counters.batches++;
    this.hooks.onRequest?.({ calls: chunk.length, batch: asBatch });
    const remaining = Math.max(...chunk.map((e) => e.deadline)) - Date.now();
    const answer = await postJson(
      this.o.url,
      this.o.headers,
      JSON.stringify(asBatch ? bodies : bodies[0]),
      Math.min(this.o.timeoutMs, remaining),
      this.abort.signal,
    );
    if (!answer.ok) {
      // A 413 or another 4xx to an array: the upstream (or a proxy before it) refuses batches.
      const status = answer.status ?? 0;
      if (asBatch && answer.kind === "fatal" && status >= 400 && status < 500) {
        this.refuseBatching(chunk, answer.reason);
        return;
      }
      for (const e of chunk)
        this.retryOrFail(e, answer.kind, answer.errorClass, answer.reason, answer.retryAfterMs);
      return;
    }
    const { body, status, retryAfterMs } = answer;
    // JSON came back: whatever it says, the upstream answers. Back from down: what waits for a
    // retry goes now, not after its backoff.
    if (this.reach.answered()) this.retryNow();
    if (!asBatch) {
      const item = Array.isArray(body) && body.length === 1 ? body[0] : body;
      this.settle(chunk[0]!, item, status, retryAfterMs);
      return;
    }
    if (!Array.isArray(body)) {
      const err = errorShape(body);
      if ((err !== undefined && isRateLimitError(err)) || status === 429 || status === 503) {
        const reason = err === undefined ? `answered HTTP ${status}` : describeError(err);
        for (const e of chunk) this.retryOrFail(e, "rate", "rateLimited", reason, retryAfterMs);
        return;
      }
      // proxyd refuses a whole batch for one method it does not serve (403 -32001 "rpc method
      // is not whitelisted"): those calls go one by one this time; batching stays on.
      if (err !== undefined && !isBatchRefusal(err.message) && isMethodUnavailable(err)) {
        for (const e of chunk) {
          e.attempt--;
          e.alone = true;
          this.enqueue(e);
        }
        return;
      }
      this.refuseBatching(chunk, `answered a batch with ${quoteBody(JSON.stringify(body))}`);
      return;
    }
    if (this.counters.batching === "unknown") this.counters.batching = "yes";
    const answered = new Set<Entry>();
    for (const item of body) {
      const id = isObject(item) ? item.id : undefined;
      // Some gateways echo ids as strings.
      const entry =
        typeof id === "number" || typeof id === "string" ? byId.get(String(id)) : undefined;
      if (entry === undefined || answered.has(entry)) continue;
      answered.add(entry);
      this.settle(entry, item, status, retryAfterMs);
    }
    for (const e of chunk)
      if (!answered.has(e))
        this.retryOrFail(
          e,
          "transient",
          "protocol",
          "left a call out of its batch answer",
          undefined,
        );
  }

  /** Sends every call waiting for a retry now. */
  private retryNow(): void {
    for (const entry of this.live) {
      if (entry.retryTimer === undefined) continue;
      clearTimeout(entry.retryTimer);
      entry.retryTimer = undefined;
      this.enqueue(entry);
    }
  }

  private refuseBatching(chunk: Entry[], reason: string): void {
    if (this.counters.batching !== "no")
      this.logger?.warn(
        { upstream: this.host, reason },
        "the upstream refuses JSON-RPC batches: sending calls one per request",
      );
    this.counters.batching = "no";
    for (const e of chunk) {
      e.attempt--; // the refusal is not the call's failure
      this.enqueue(e);
    }
  }

  /** One call's answer (a batch item, or a single answer). */
  private settle(
    entry: Entry,
    item: unknown,
    status: number,
    retryAfterMs: number | undefined,
  ): void {
    if (isObject(item) && "result" in item && (item.error === undefined || item.error === null)) {
      this.succeed(entry, item.result);
      return;
    }
    const err = errorShape(item);
    if (err !== undefined) {
      if (isRateLimitError(err)) {
        const hint = backoffHintMs(err) ?? retryAfterMs;
        this.retryOrFail(entry, "rate", "rateLimited", describeError(err), hint);
      } else if (status >= 502 && status <= 504) {
        this.retryOrFail(entry, "transient", "unavailable", describeError(err), retryAfterMs);
      } else {
        this.fail(
          entry,
          new UpstreamCallError(this.host, entry.method, err.code, err.message, err.data),
        );
      }
      return;
    }
    if (status === 429) {
      this.retryOrFail(entry, "rate", "rateLimited", `answered HTTP 429`, retryAfterMs);
      return;
    }
    const reason = `answered ${entry.method} with JSON that is neither a result nor an error: ${quoteBody(JSON.stringify(item) ?? "")}`;
    this.fail(
      entry,
      new UpstreamProtocolError(this.host, `the upstream at ${this.host} ${reason}`),
    );
  }

  private retryOrFail(
    entry: Entry,
    kind: FailureKind,
    errorClass: FailureClass,
    reason: string,
    hintMs: number | undefined,
  ): void {
    if (entry.done) return;
    entry.last = { errorClass, reason };
    // No answer (refused, timed out, 503): down from now, whether or not a retry follows.
    if (errorClass === "unavailable" && !this.closed)
      this.reach.failed(`the upstream at ${this.host} ${reason}`);
    const backoff = Math.min(this.o.maxBackoffMs, this.o.retryBackoffMs * 2 ** (entry.attempt - 1));
    const delayMs = hintMs ?? backoff;
    let giveUp: string | undefined;
    if (kind === "fatal" || this.closed) giveUp = "";
    else if (entry.attempt > this.o.retries) giveUp = ` (after ${entry.attempt} attempts)`;
    else if (Date.now() + delayMs >= entry.deadline)
      giveUp = ` (after ${entry.attempt} attempts; a retry in ${delayMs} ms would pass the call's ${entry.budgetMs} ms budget)`;
    if (giveUp !== undefined) {
      this.fail(entry, finalError(this.host, entry, giveUp));
      return;
    }
    this.counters.retries++;
    this.hooks.onRetry?.({ method: entry.method, attempt: entry.attempt, delayMs, reason });
    this.logger?.debug(
      { upstream: this.host, method: entry.method, attempt: entry.attempt, delayMs, reason },
      "retrying an upstream call",
    );
    entry.retryTimer = setTimeout(() => {
      entry.retryTimer = undefined;
      this.enqueue(entry);
    }, delayMs);
  }

  /** The call's budget ran out (waiting for an answer or for a retry). */
  private expire(entry: Entry): void {
    if (entry.done) return;
    if (entry.last === undefined)
      entry.last = {
        errorClass: "unavailable",
        reason: `gave no answer to ${entry.method} within ${entry.budgetMs} ms`,
      };
    this.fail(entry, finalError(this.host, entry, ` (call budget of ${entry.budgetMs} ms spent)`));
  }

  private succeed(entry: Entry, value: unknown): void {
    if (entry.done) return;
    this.finish(entry, undefined);
    entry.resolve(value);
  }

  private fail(entry: Entry, error: UpstreamError): void {
    if (entry.done) return;
    this.finish(entry, error.code);
    this.counters.errors[error.code]++;
    // No answer at all (not an error the upstream answered): it is down until it answers again.
    if (
      !this.closed &&
      (error.code === "UPSTREAM_UNAVAILABLE" || error.code === "UPSTREAM_RATE_LIMITED")
    )
      this.reach.failed(error.message);
    entry.reject(error);
  }

  private finish(entry: Entry, error: UpstreamErrorCode | undefined): void {
    entry.done = true;
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    if (entry.retryTimer !== undefined) clearTimeout(entry.retryTimer);
    this.live.delete(entry);
    this.hooks.onCall?.({
      method: entry.method,
      seconds: (performance.now() - entry.startedAt) / 1000,
      attempts: entry.attempt,
      error,
    });
  }
}
