// The RPC thread's handle on the sequencer worker: transaction intake, and the stream of
// flashblocks and seals that keeps the pending view current.
import type { Worker } from "node:worker_threads";
import type { Logger } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import { RpcError } from "../services/errors.ts";
import {
  type DevAnswer,
  type DevRequest,
  type PoolContent,
  TxRejectedError,
} from "../services/transactions.ts";
import { bytesToHex, bytesToUnprefixedHex } from "../util/hex.ts";
import { startTsWorker } from "../util/tsWorker.ts";
import type { FromWorker, SequencerWorkerData, ToWorker } from "./protocol.ts";

type Pending = {
  resolve: (value: string | PoolContent | DevAnswer) => void;
  reject: (e: Error) => void;
};

export class SequencerClient {
  private nextId = 1;
  private readonly inflight = new Map<number, Pending>();
  private readonly poolNonces = new Map<string, bigint>();
  /** The head the node started on, when the datadir already held a chain (continued). */
  resumedAt: number | undefined;
  /** Told of each sender's next pool nonce as the pool accepts its transactions. */
  onPoolNonce: ((sender: Uint8Array, nextNonce: bigint) => void) | undefined;
  stopping: Promise<void> | undefined;

  private constructor(
    private readonly worker: Worker,
    private readonly onUpdate: (update: FlashblockUpdate | SealedUpdate) => void,
    private readonly logger: Logger,
  ) {}

  static start(
    data: SequencerWorkerData,
    onUpdate: (update: FlashblockUpdate | SealedUpdate) => void,
    logger: Logger,
  ): Promise<SequencerClient> {
    const worker = startTsWorker(new URL("./worker.ts", import.meta.url), data);
    const client = new SequencerClient(worker, onUpdate, logger);
    return new Promise((resolve, reject) => {
      worker.on("message", (msg: FromWorker) => {
        if (msg.type === "ready") {
          if (msg.resumed) client.resumedAt = msg.head;
          resolve(client);
          // After start, a dead sequencer is fatal: the chain would silently stop.
          worker.once("exit", (code) => {
            if (client.stopping === undefined) {
              logger.fatal({ code }, "sequencer worker exited");
              process.exit(1);
            }
          });
        } else if (msg.type === "failed")
          reject(
            msg.code === undefined
              ? new Error(`sequencer failed to start: ${msg.message}`)
              : new SequencerStartError(msg.message, msg.code),
          );
        else client.handle(msg);
      });
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`sequencer worker exited (${code})`)));
    });
  }

  private handle(msg: FromWorker): void {
    switch (msg.type) {
      case "submitted": {
        const key = bytesToUnprefixedHex(msg.sender);
        const known = this.poolNonces.get(key);
        if (known === undefined || msg.nextNonce > known) {
          this.poolNonces.set(key, msg.nextNonce);
          this.onPoolNonce?.(msg.sender, msg.nextNonce);
        }
        this.settle(msg.id)?.resolve(msg.hash);
        this.logger.info(
          { hash: msg.hash, from: bytesToHex(msg.sender), nonce: Number(msg.nonce) },
          "transaction received",
        );
        break;
      }
      case "mined":
        this.settle(msg.id)?.resolve(String(msg.number));
        break;
      case "pool":
        this.settle(msg.id)?.resolve(msg.content);
        break;
      case "log":
        this.logger[msg.level](msg.fields, msg.msg);
        break;
      case "controlled":
        this.settle(msg.id)?.resolve(msg.answer);
        break;
      case "rejected":
        this.settle(msg.id)?.reject(
          msg.rpcCode === undefined
            ? new TxRejectedError(msg.message)
            : new RpcError(msg.rpcCode, msg.message),
        );
        break;
      case "update": {
        // After evm_revert the pool's next nonces are the state's again (what the dropped
        // blocks ran is gone): the next submission tells them anew.
        if (msg.update.kind === "sealed" && msg.update.reverted !== undefined)
          this.poolNonces.clear();
        this.onUpdate(msg.update);
        break;
      }
      default:
        break;
    }
  }

  private settle(id: number): Pending | undefined {
    const p = this.inflight.get(id);
    this.inflight.delete(id);
    return p;
  }

  submit(raw: Uint8Array): Promise<{ hash: string }> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.inflight.set(id, { resolve: (hash) => resolve({ hash: hash as string }), reject });
      this.worker.postMessage({ type: "submit", id, raw } satisfies ToWorker);
    });
  }

  /** Seals the block being built now; resolves with its number once the update has arrived. */
  mine(): Promise<number> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.inflight.set(id, { resolve: (n) => resolve(Number(n)), reject });
      this.worker.postMessage({ type: "mine", id } satisfies ToWorker);
    });
  }

  /** What the pool holds (src/sequencer/poolContent.ts). */
  poolContent(): Promise<PoolContent> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.inflight.set(id, { resolve: (c) => resolve(c as PoolContent), reject });
      this.worker.postMessage({ type: "pool", id } satisfies ToWorker);
    });
  }

  /** A dev method's request (src/sequencer/devRequests.ts). */
  control(request: DevRequest): Promise<DevAnswer> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.inflight.set(id, { resolve: (a) => resolve(a as DevAnswer), reject });
      this.worker.postMessage({ type: "control", id, request } satisfies ToWorker);
    });
  }

  /** Every sender's next pool nonce (what a new RPC reader starts from). */
  poolNonceEntries(): Array<readonly [string, bigint]> {
    return [...this.poolNonces];
  }

  poolNonce(address: Uint8Array): bigint | undefined {
    return this.poolNonces.get(bytesToUnprefixedHex(address));
  }

  stop(): Promise<void> {
    this.stopping ??= new Promise((resolve) => {
      this.worker.on("message", (msg: FromWorker) => {
        if (msg.type === "stopped") void this.worker.terminate().then(() => resolve());
      });
      this.worker.once("exit", () => resolve());
      this.worker.postMessage({ type: "stop" } satisfies ToWorker);
    });
    return this.stopping;
  }
}

/** An operator's error raised while the sequencer thread started (a wrong datadir, say). */
export class SequencerStartError extends Error {
  constructor(
    message: string,
    readonly code: string,
  ) {
    super(message);
  }
}
