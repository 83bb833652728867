// The RPC thread's handle on the call worker (implements the RPC layer's CallService), over the
// one channel (src/util/channel.ts). A worker that dies, or misses a request's deadline (stuck),
// is replaced: what waited on it fails with the channel's error, later calls go to the new one.
import type { Worker } from "node:worker_threads";
import type { Logger } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { BuildBlockRequest, BuiltPayload } from "../services/buildBlock.ts";
import type {
  AccessListResult,
  CallRequest,
  CallResult,
  CallTarget,
} from "../services/callRequest.ts";
import type { CallService, TraceOptions, TraceRequest } from "../services/calls.ts";
import type { SimulatedBlock, SimulateRequest } from "../services/simulate.ts";
import { type Channel, DeadlineError } from "../util/channel.ts";
import { startWorkerChannel } from "../util/tsWorker.ts";
import { DEFAULT_CALL_LIMITS } from "./callLimits.ts";
import type { CallParentApi, CallWorkerApi, CallWorkerData } from "./callProtocol.ts";
import { parseGoDuration } from "./trace/goDuration.ts";

type Update = FlashblockUpdate | SealedUpdate;
type CallChannel = Channel<CallWorkerApi, CallParentApi>;

/** Past its own time limit (the EVM's, a trace's), a request this much later means a stuck worker. */
const DEADLINE_MARGIN_MS = 30_000;
/** A run with no time limit of its own (--rpc-evmtimeout 0, testing_buildBlockV1). */
const UNBOUNDED_RUN_MS = 300_000;
/** geth's trace timeout when the config gives none. */
const DEFAULT_TRACE_TIMEOUT_MS = 5_000;

const worker = new URL("./callWorker.ts", import.meta.url);

export class CallClient implements CallService {
  /** The block being built, from its flashblock 0: what a replacement worker is sent first. */
  private current: Update[] = [];
  private stopping = false;
  private replacing: Promise<void> | undefined;
  /** A worker ended on purpose (reconfigure): its exit is not a failure to report. */
  private retired: CallChannel | undefined;

  private constructor(
    private channel: CallChannel,
    private thread: Worker,
    private data: CallWorkerData,
    private readonly logger: Logger | undefined,
  ) {
    this.watch();
  }

  /** `logger`: where a request's gas above the cap is reported (geth warns), and replacements. */
  static async start(data: CallWorkerData, logger?: Logger): Promise<CallClient> {
    const { channel, worker: thread } = await CallClient.spawn(data);
    return new CallClient(channel, thread, data, logger);
  }

  private static spawn(data: CallWorkerData) {
    return startWorkerChannel<CallWorkerApi, null, CallParentApi>(worker, data, {
      peer: "the call worker",
      deadlineMs: 0,
    });
  }

  private get limits() {
    return this.data.limits ?? DEFAULT_CALL_LIMITS;
  }

  /** Replaces the worker once it is gone, unless the node is stopping. */
  private watch(): void {
    const channel = this.channel;
    void channel.whenGone().then((e) => {
      if (this.stopping || channel !== this.channel || channel === this.retired) return;
      this.logger?.warn({ err: e.message }, "call worker gone; starting another");
      this.replace();
    });
  }

  /**
   * The chain was replaced (anvil_reset): the worker is replaced by one started with `data`
   * (another fork's upstream, or none); calls made meanwhile wait for it.
   */
  reconfigure(data: CallWorkerData): void {
    this.data = data;
    this.retired = this.channel;
    const old = this.thread;
    this.replace();
    void old.terminate();
  }

  private replace(): void {
    this.replacing ??= CallClient.spawn(this.data)
      .then(({ channel, worker: thread }) => {
        if (this.stopping) {
          void thread.terminate();
          return;
        }
        this.channel = channel;
        this.thread = thread;
        for (const u of this.current) channel.emit("update", u);
        this.watch();
      })
      .catch((e: unknown) => this.logger?.error({ err: e }, "call worker failed to start"))
      .finally(() => {
        this.replacing = undefined;
      });
  }

  private async ask<K extends keyof CallWorkerApi["requests"] & string>(
    kind: K,
    body: CallWorkerApi["requests"][K]["request"],
    runMs: number,
  ): Promise<CallWorkerApi["requests"][K]["reply"]> {
    // A call made while a worker is being replaced (dead, or reconfigured) waits for the new one.
    if (this.replacing !== undefined) await this.replacing;
    const channel = this.channel;
    const deadline = (runMs > 0 ? runMs : UNBOUNDED_RUN_MS) + DEADLINE_MARGIN_MS;
    return channel.request(kind, body, deadline).catch((e: unknown) => {
      if (e instanceof DeadlineError && channel === this.channel && !this.stopping) {
        // Stuck past its own limits: what else waits on it would wait as long.
        this.logger?.error({ kind }, "call worker stuck past its deadline; replacing it");
        void this.thread.terminate();
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

  /** Keeps the worker's pending block in step with the RPC thread's. */
  forward(update: Update): void {
    if (update.kind === "sealed" || update.index === 0) this.current = [update];
    else this.current.push(update);
    this.channel.emit("update", update);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.channel.close("the node is shutting down");
    await this.thread.terminate();
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
