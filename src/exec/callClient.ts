// The RPC thread's handle on the call worker (implements the RPC layer's CallService).
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
import { startTsWorker } from "../util/tsWorker.ts";
import { CallFailedError } from "./callExecutor.ts";
import { DEFAULT_CALL_LIMITS } from "./callLimits.ts";
import type { CallWorkerData, FromCallWorker, ToCallWorker } from "./callProtocol.ts";

type Answer = CallResult | bigint | AccessListResult | string | BuiltPayload | SimulatedBlock[];

type Waiter = {
  resolve: (value: Answer) => void;
  reject: (e: Error) => void;
};

export class CallClient implements CallService {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  /** Why the worker stopped, once it has (then every request fails at once instead of hanging). */
  private stopped: Error | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly gasCap: bigint,
    private readonly logger: Logger | undefined,
  ) {}

  /** `logger`: where a request's gas above the cap is reported (geth warns). */
  static start(data: CallWorkerData, logger?: Logger): Promise<CallClient> {
    const worker = startTsWorker(new URL("./callWorker.ts", import.meta.url), data);
    const gasCap = (data.limits ?? DEFAULT_CALL_LIMITS).gasCap;
    const client = new CallClient(worker, gasCap, logger);
    return new Promise((resolve, reject) => {
      worker.on("message", (msg: FromCallWorker) => {
        if (msg.type === "ready") resolve(client);
        else if (msg.type === "failed")
          reject(new Error(`call worker failed to start: ${msg.message}`));
        else client.handle(msg);
      });
      worker.once("error", reject);
      // A worker that dies later (out of memory on a huge trace, …) fails what waits on it.
      worker.on("error", (e) => client.fail(new Error(`call worker failed: ${e.message}`)));
      worker.on("exit", (code) => client.fail(new Error(`call worker exited (${code})`)));
    });
  }

  private fail(reason: Error): void {
    this.stopped ??= reason;
    for (const w of this.waiting.values()) w.reject(this.stopped);
    this.waiting.clear();
  }

  private handle(msg: FromCallWorker): void {
    if (msg.type === "ready" || msg.type === "failed") return;
    const w = this.waiting.get(msg.id);
    this.waiting.delete(msg.id);
    if (w === undefined) return;
    if (msg.type === "called") w.resolve(msg.result);
    else if (msg.type === "estimated") w.resolve(msg.gas);
    else if (msg.type === "accessListed") w.resolve(msg.result);
    else if (msg.type === "traced") w.resolve(msg.json);
    else if (msg.type === "built") w.resolve(msg.payload);
    else if (msg.type === "simulated") w.resolve(msg.blocks);
    else w.reject(new CallFailedError(msg.message, msg.rpcCode, msg.data));
  }

  private send(message: ToCallWorker & { id: number }) {
    return new Promise<Answer>((resolve, reject) => {
      if (this.stopped !== undefined) {
        reject(this.stopped);
        return;
      }
      this.waiting.set(message.id, { resolve, reject });
      this.worker.postMessage(message);
    });
  }

  private request(
    type: "call" | "estimate" | "accessList",
    request: CallRequest,
    target: CallTarget,
  ): Promise<Answer> {
    if (this.gasCap > 0n && request.gas !== undefined && request.gas > this.gasCap)
      this.logger?.warn(
        { requested: request.gas.toString(), cap: this.gasCap.toString() },
        "Caller gas above allowance, capping",
      );
    return this.send({ type, id: this.nextId++, request, target });
  }

  async call(request: CallRequest, target: CallTarget): Promise<CallResult> {
    return (await this.request("call", request, target)) as CallResult;
  }

  async estimateGas(request: CallRequest, target: CallTarget): Promise<bigint> {
    return (await this.request("estimate", request, target)) as bigint;
  }

  async createAccessList(request: CallRequest, target: CallTarget): Promise<AccessListResult> {
    return (await this.request("accessList", request, target)) as AccessListResult;
  }

  async simulate(request: SimulateRequest, target: CallTarget): Promise<SimulatedBlock[]> {
    return (await this.send({
      type: "simulate",
      id: this.nextId++,
      request,
      target,
    })) as SimulatedBlock[];
  }

  async trace(request: TraceRequest, options: TraceOptions): Promise<string> {
    return (await this.send({ type: "trace", id: this.nextId++, request, options })) as string;
  }

  buildBlock(request: BuildBlockRequest): Promise<BuiltPayload> {
    return this.send({ type: "build", id: this.nextId++, request }) as Promise<BuiltPayload>;
  }

  /** Keeps the worker's pending block in step with the RPC thread's. */
  forward(update: FlashblockUpdate | SealedUpdate): void {
    this.worker.postMessage({ type: "update", update } satisfies ToCallWorker);
  }

  async stop(): Promise<void> {
    this.fail(new Error("node is shutting down"));
    await this.worker.terminate();
  }
}
