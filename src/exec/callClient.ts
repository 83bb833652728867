// The RPC thread's handle on the call worker (implements the RPC layer's CallService), over the
// one channel (src/util/channel.ts). A worker that dies, or misses a request's deadline (stuck),
// is replaced: what waited on it fails with the channel's error, later calls go to the new one.
import type { Worker } from "node:worker_threads";
import type { Logger } from "../log/logger.ts";
import { type PendingSnapshot, shareSnapshot } from "../pending/pendingBlock.ts";
import type { BuildBlockRequest, BuiltPayload } from "../services/buildBlock.ts";
import type {
  AccessListResult,
  CallRequest,
  CallResult,
  CallTarget,
} from "../services/callRequest.ts";
import type { CallService, TraceOptions, TraceRequest } from "../services/calls.ts";
import type { SimulatedBlock, SimulateRequest } from "../services/simulate.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import { type Channel, DeadlineError, PeerGoneError } from "../util/channel.ts";
import { startWorkerChannel } from "../util/tsWorker.ts";
import { DEFAULT_CALL_LIMITS } from "./callLimits.ts";
import type { CallParentApi, CallWorkerApi, CallWorkerData } from "./callProtocol.ts";
import { parseGoDuration } from "./trace/goDuration.ts";

type CallChannel = Channel<CallWorkerApi, CallParentApi>;

/** Past its own time limit (the EVM's, a trace's), a request this much later means a stuck worker. */
const DEADLINE_MARGIN_MS = 30_000;
/** A run with no time limit of its own (--rpc-evmtimeout 0, testing_buildBlockV1). */
const UNBOUNDED_RUN_MS = 300_000;
/** geth's trace timeout when the config gives none. */
const DEFAULT_TRACE_TIMEOUT_MS = 5_000;
/** A scrape waits this long for the worker's upstream figures (a busy worker's are left out). */
const UPSTREAM_CALLS_DEADLINE_MS = 2_000;

const worker = new URL("./callWorker.ts", import.meta.url);

type Started = { readonly channel: CallChannel; readonly thread: Worker };

export class CallClient implements CallService {
  /** The pending block as last shared: what a new worker is sent first. */
  private current: PendingSnapshot | undefined;
  private stopping = false;
  /** The worker, once it is up; until then (and while one is replaced) `starting` says when. */
  private worker: Started | undefined;
  private starting: Promise<void> | undefined;
  private first: Promise<void> | undefined;
  private generation = 0;

  /**
   * The worker starts with start(), or with the first call: a node may serve reads before its
   * call worker has loaded (the EVM is a large part of a start); a call made meanwhile waits for
   * it. `logger`: where a request's gas above the cap is reported (geth warns), and
   * replacements.
   */
  constructor(
    private data: CallWorkerData,
    private readonly logger?: Logger,
  ) {}

  /**
   * Starts the worker (once; later calls return the same promise): resolves once it is ready,
   * rejects with its error if it failed to start.
   */
  start(): Promise<void> {
    if (this.first === undefined) {
      this.first = this.spawn();
      this.starting = this.first.catch(() => {});
    }
    return this.first;
  }

  private get limits() {
    return this.data.limits ?? DEFAULT_CALL_LIMITS;
  }

  /**
   * The chain was replaced (anvil_reset): the worker is replaced by one started with `data`
   * (another fork's upstream, or none); calls made meanwhile wait for it. The old worker's exit
   * is not reported as a failure (it is no longer the one watched).
   */
  reconfigure(data: CallWorkerData): void {
    this.data = data;
    // Not started yet: the first start reads the new data.
    if (this.first === undefined || this.stopping) return;
    const old = this.worker;
    this.worker = undefined;
    const next = this.spawn();
    this.starting = next.catch((err: unknown) => {
      this.starting = undefined;
      this.logger?.error({ err }, "call worker failed to start");
    });
    if (old !== undefined) {
      old.channel.close("the chain was replaced");
      void old.thread.terminate();
    }
  }

  private spawn(): Promise<void> {
    // A start overtaken by a later one (reconfigure while starting) is not the worker.
    const generation = ++this.generation;
    return startWorkerChannel<CallWorkerApi, null, CallParentApi>(worker, this.data, {
      peer: "the call worker",
      deadlineMs: 0,
    }).then(({ channel, worker: thread }) => {
      if (generation !== this.generation) {
        void thread.terminate();
        return;
      }
      this.starting = undefined;
      if (this.stopping) {
        void thread.terminate();
        return;
      }
      this.worker = { channel, thread };
      // What arrived while it started: the pending block now.
      if (this.current !== undefined)
        channel.emit("pending", { snapshot: shareSnapshot(this.current), sealed: true });
      this.watch(channel);
    });
  }

  /** Replaces the worker once it is gone, unless the node is stopping. */
  private watch(channel: CallChannel): void {
    void channel.whenGone().then((e) => {
      if (this.stopping || channel !== this.worker?.channel) return;
      this.logger?.warn({ err: e.message }, "call worker gone; starting another");
      this.worker = undefined;
      this.starting ??= this.spawn().catch((err: unknown) => {
        this.starting = undefined;
        this.logger?.error({ err }, "call worker failed to start");
      });
    });
  }

  private async ask<K extends keyof CallWorkerApi["requests"] & string>(
    kind: K,
    body: CallWorkerApi["requests"][K]["request"],
    runMs: number,
  ): Promise<CallWorkerApi["requests"][K]["reply"]> {
    // A call made while the worker starts, or while a dead one is replaced, waits for it.
    if (this.first === undefined) void this.start().catch(() => {});
    if (this.worker === undefined || this.worker.channel.closed) await this.starting;
    const started = this.worker;
    if (started === undefined) throw new PeerGoneError("the call worker failed to start");
    const { channel, thread } = started;
    const deadline = (runMs > 0 ? runMs : UNBOUNDED_RUN_MS) + DEADLINE_MARGIN_MS;
    return channel.request(kind, body, deadline).catch((e: unknown) => {
      if (e instanceof DeadlineError && started === this.worker && !this.stopping) {
        // Stuck past its own limits: what else waits on it would wait as long.
        this.logger?.error({ kind }, "call worker stuck past its deadline; replacing it");
        void thread.terminate();
      }
      throw e;
    });
  }

  private callRequest(
    kind: "call" | "estimate" | "accessList",
    request: CallRequest,
    target: CallTarget,
  ) {
    const gasCap = this.limits.gasCap;
    if (gasCap > 0n && request.gas !== undefined && request.gas > gasCap)
      this.logger?.warn(
        { requested: request.gas.toString(), cap: gasCap.toString() },
        "Caller gas above allowance, capping",
      );
    // An estimate runs the call several times, each within the EVM's limit.
    const runs = kind === "estimate" ? 64 : 1;
    return this.ask(kind, { request, target }, this.limits.evmTimeoutMs * runs);
  }

  call(request: CallRequest, target: CallTarget): Promise<CallResult> {
    return this.callRequest("call", request, target) as Promise<CallResult>;
  }

  estimateGas(request: CallRequest, target: CallTarget): Promise<bigint> {
    return this.callRequest("estimate", request, target) as Promise<bigint>;
  }

  createAccessList(request: CallRequest, target: CallTarget): Promise<AccessListResult> {
    return this.callRequest("accessList", request, target) as Promise<AccessListResult>;
  }

  simulate(request: SimulateRequest, target: CallTarget): Promise<SimulatedBlock[]> {
    return this.ask("simulate", { request, target }, UNBOUNDED_RUN_MS);
  }

  trace(request: TraceRequest, options: TraceOptions): Promise<string> {
    const timeout =
      options.timeout === undefined ? DEFAULT_TRACE_TIMEOUT_MS : traceTimeoutMs(options.timeout);
    return this.ask("trace", { request, options }, timeout);
  }

  buildBlock(request: BuildBlockRequest): Promise<BuiltPayload> {
    return this.ask("build", request, UNBOUNDED_RUN_MS);
  }

  /** What the worker's upstream client did (a fork's; metrics); none while no worker runs. */
  upstreamCalls(): Promise<UpstreamSeries[]> {
    const channel = this.worker?.channel;
    if (channel === undefined || channel.closed) return Promise.resolve([]);
    return channel.request("upstreamCalls", null, UPSTREAM_CALLS_DEADLINE_MS).catch(() => []);
  }

  /**
   * Keeps the worker's pending block in step with the RPC thread's: the same layers, shared
   * (each crosses by reference, once laid out); `sealed`: a block was sealed since the last.
   */
  share(pending: PendingSnapshot, sealed: boolean): void {
    this.current = pending;
    this.worker?.channel.emit("pending", { snapshot: shareSnapshot(pending), sealed });
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await this.starting;
    const started = this.worker;
    if (started === undefined) return;
    started.channel.close("the node is shutting down");
    await started.thread.terminate();
  }
}

/** A trace config's timeout in ms (an unparsable one fails in the worker, with geth's words). */
function traceTimeoutMs(timeout: string): number {
  try {
    return parseGoDuration(timeout);
  } catch {
    return DEFAULT_TRACE_TIMEOUT_MS;
  }
}
