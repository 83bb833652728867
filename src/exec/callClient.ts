// The RPC thread's handle on the call worker (implements the RPC layer's CallService).
import type { Worker } from "node:worker_threads";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type {
  AccessListResult,
  CallRequest,
  CallResult,
  CallService,
  CallTarget,
} from "../rpc/backend.ts";
import type { SimulatedBlock, SimulateRequest } from "../rpc/simulateTypes.ts";
import { startTsWorker } from "../util/tsWorker.ts";
import { CallFailedError } from "./callExecutor.ts";
import type { CallWorkerData, FromCallWorker, ToCallWorker } from "./callProtocol.ts";

type Waiter = {
  resolve: (value: CallResult | bigint | AccessListResult | SimulatedBlock[]) => void;
  reject: (e: Error) => void;
};

export class CallClient implements CallService {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();

  private constructor(private readonly worker: Worker) {}

  static start(data: CallWorkerData): Promise<CallClient> {
    const worker = startTsWorker(new URL("./callWorker.ts", import.meta.url), data);
    const client = new CallClient(worker);
    return new Promise((resolve, reject) => {
      worker.on("message", (msg: FromCallWorker) => {
        if (msg.type === "ready") resolve(client);
        else if (msg.type === "failed")
          reject(new Error(`call worker failed to start: ${msg.message}`));
        else client.handle(msg);
      });
      worker.once("error", reject);
    });
  }

  private handle(msg: FromCallWorker): void {
    if (msg.type === "ready" || msg.type === "failed") return;
    const w = this.waiting.get(msg.id);
    this.waiting.delete(msg.id);
    if (w === undefined) return;
    if (msg.type === "called") w.resolve(msg.result);
    else if (msg.type === "estimated") w.resolve(msg.gas);
    else if (msg.type === "accessListed") w.resolve(msg.result);
    else if (msg.type === "simulated") w.resolve(msg.blocks);
    else w.reject(new CallFailedError(msg.message, msg.rpcCode, msg.data));
  }

  private request(
    message: Extract<ToCallWorker, { id: number }>,
  ): Promise<CallResult | bigint | AccessListResult | SimulatedBlock[]> {
    return new Promise((resolve, reject) => {
      this.waiting.set(message.id, { resolve, reject });
      this.worker.postMessage(message satisfies ToCallWorker);
    });
  }

  async call(request: CallRequest, target: CallTarget): Promise<CallResult> {
    return (await this.request({ type: "call", id: this.nextId++, request, target })) as CallResult;
  }

  async estimateGas(request: CallRequest, target: CallTarget): Promise<bigint> {
    return (await this.request({ type: "estimate", id: this.nextId++, request, target })) as bigint;
  }

  async createAccessList(request: CallRequest, target: CallTarget): Promise<AccessListResult> {
    return (await this.request({
      type: "accessList",
      id: this.nextId++,
      request,
      target,
    })) as AccessListResult;
  }

  async simulate(request: SimulateRequest, target: CallTarget): Promise<SimulatedBlock[]> {
    return (await this.request({
      type: "simulate",
      id: this.nextId++,
      request,
      target,
    })) as SimulatedBlock[];
  }

  /** Keeps the worker's pending block in step with the RPC thread's. */
  forward(update: FlashblockUpdate | SealedUpdate): void {
    this.worker.postMessage({ type: "update", update } satisfies ToCallWorker);
  }

  async stop(): Promise<void> {
    for (const w of this.waiting.values()) w.reject(new Error("node is shutting down"));
    this.waiting.clear();
    await this.worker.terminate();
  }
}
