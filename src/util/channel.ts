// The one channel between threads and processes: typed requests with replies, and one-way
// events, over any message port (a worker thread from either side, a cluster worker, this
// process's IPC). One failure rule for every use: when the peer is gone or a request's deadline
// passes, every call waiting on it rejects with a typed error (PeerGoneError, DeadlineError);
// nothing waits forever, and a request made after the peer is gone fails at once.

import cluster, { type Worker as ClusterWorker } from "node:cluster";
import type { MessagePort, Worker } from "node:worker_threads";
import {
  ERROR_REACH,
  type ErrorCode,
  FlashnodeError,
  houseError,
  isErrorCode,
  RpcError,
  unreachable,
} from "./errors.ts";

/** What crosses a port: a request, its reply, or an event. `fn` tells ours from others'. */
type Envelope =
  | {
      readonly fn: 1;
      readonly t: "req";
      readonly id: number;
      readonly kind: string;
      readonly body: unknown;
    }
  | { readonly fn: 1; readonly t: "ok"; readonly id: number; readonly body: unknown }
  | { readonly fn: 1; readonly t: "err"; readonly id: number; readonly error: WireError }
  | { readonly fn: 1; readonly t: "evt"; readonly kind: string; readonly body: unknown };

/** An error as it crosses: its class name, message, code (of the house; INTERNAL for a foreign
 * error) and, for an RpcError, its JSON-RPC code and data. */
export type WireError = {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
  readonly rpcCode?: number;
  readonly data?: unknown;
};

/** A message port, whatever carries it. */
export type Endpoint = {
  /** Sends a message; false when the port is closed (the message is dropped). */
  post(message: unknown): boolean;
  /** Calls `onMessage` for each message and `onClose` once when the peer is gone. */
  listen(onMessage: (message: unknown) => void, onClose: (reason: string) => void): () => void;
};

/** Requests a side serves (kind → request and reply) and events it takes (kind → payload). */
export type Api = {
  readonly requests: Record<string, { readonly request: unknown; readonly reply: unknown }>;
  readonly events: Record<string, unknown>;
};

/** The peer is gone (exited, killed, disconnected) or the channel was closed. */
export class PeerGoneError extends FlashnodeError {
  readonly code = "PEER_GONE";
}

/** The peer did not answer a request within its deadline. */
export class DeadlineError extends FlashnodeError {
  readonly code = "DEADLINE";
}

/**
 * An error the peer's handler threw, as it crossed: its code, name and JSON-RPC code and data
 * kept. An RpcError, so a JSON-RPC error from a worker reaches the client as thrown; any other
 * code reaches it as its table says (util/errors.ts ERROR_REACH).
 */
export class RemoteError extends RpcError {
  override readonly code: ErrorCode;
  readonly remoteName: string;
  constructor(w: WireError) {
    // -32000: geth's code for plain errors, what the peer's toRpcError would have given it.
    super(w.rpcCode ?? -32000, w.message, w.data);
    this.remoteName = w.name;
    // Parsed at the edge: a code this build does not know crossed from a bug.
    this.code = isErrorCode(w.code) ? w.code : "INTERNAL";
  }
}

/** An error as it crosses a channel: by its code (util/errors.ts ERROR_REACH). */
export function toWire(e: unknown): WireError {
  if (!(e instanceof Error)) return { name: "Error", message: String(e) };
  const name = e instanceof RemoteError ? e.remoteName : e.name;
  // The channel is where a handler's throw is caught: a system error (ENOENT…) becomes the house's.
  const h = houseError(e);
  if (h === undefined) return { name, message: e.message, code: "INTERNAL" };
  const reach = ERROR_REACH[h.code];
  switch (reach) {
    case "rpc":
      if (!(h instanceof RpcError)) return { name, message: h.message, code: h.code };
      return {
        name,
        message: h.message,
        code: h.code,
        rpcCode: h.rpcCode,
        ...(h.data === undefined ? {} : { data: h.data }),
      };
    case "operator":
    case "internal":
      return { name, message: h.message, code: h.code };
    default:
      return unreachable(reach);
  }
}

type Waiter = {
  resolve(value: unknown): void;
  reject(e: Error): void;
  timer: NodeJS.Timeout | undefined;
};

export type ChannelOptions = {
  /** Who the peer is, for error messages ("the call worker", "reader 1"). */
  readonly peer: string;
  /** A request's deadline unless it sets its own; 0: none (the caller bounds it). */
  readonly deadlineMs: number;
};

/**
 * One side of a channel: `Theirs` is what the peer serves and takes, `Mine` what this side does.
 */
export class Channel<Theirs extends Api, Mine extends Api> {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiter>();
  private readonly handlers = new Map<string, (body: never) => unknown>();
  private readonly listeners = new Map<string, Array<(body: never) => void>>();
  private gone: PeerGoneError | undefined;
  private readonly goneListeners: Array<(e: PeerGoneError) => void> = [];
  private readonly unlisten: () => void;

  constructor(
    private readonly endpoint: Endpoint,
    private readonly options: ChannelOptions,
  ) {
    this.unlisten = endpoint.listen(
      (m) => this.receive(m),
      (reason) => this.fail(reason),
    );
  }

  /** Whether the peer is gone (every request fails at once). */
  get closed(): boolean {
    return this.gone !== undefined;
  }

  request<K extends keyof Theirs["requests"] & string>(
    kind: K,
    body: Theirs["requests"][K]["request"],
    deadlineMs = this.options.deadlineMs,
  ): Promise<Theirs["requests"][K]["reply"]> {
    if (this.gone !== undefined) return Promise.reject(this.gone);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const timer =
        deadlineMs > 0
          ? setTimeout(() => {
              this.waiting.delete(id);
              reject(
                new DeadlineError(
                  `${this.options.peer} did not answer ${kind} within ${deadlineMs} ms`,
                ),
              );
            }, deadlineMs)
          : undefined;
      this.waiting.set(id, { resolve, reject, timer });
      const envelope: Envelope = { fn: 1, t: "req", id, kind, body };
      if (!this.endpoint.post(envelope)) this.fail("its port is closed");
    });
  }

  emit<K extends keyof Theirs["events"] & string>(kind: K, body: Theirs["events"][K]): void {
    if (this.gone !== undefined) return;
    const envelope: Envelope = { fn: 1, t: "evt", kind, body };
    this.endpoint.post(envelope);
  }

  /** Serves requests of `kind`; a throw (or rejection) is the requester's rejection. */
  handle<K extends keyof Mine["requests"] & string>(
    kind: K,
    handler: (
      body: Mine["requests"][K]["request"],
    ) => Mine["requests"][K]["reply"] | Promise<Mine["requests"][K]["reply"]>,
  ): void {
    this.handlers.set(kind, handler as (body: never) => unknown);
  }

  on<K extends keyof Mine["events"] & string>(
    kind: K,
    listener: (body: Mine["events"][K]) => void,
  ): void {
    const list = this.listeners.get(kind) ?? [];
    list.push(listener as (body: never) => void);
    this.listeners.set(kind, list);
  }

  /** Resolves once the peer is gone (never rejects): where a dead peer is replaced. */
  whenGone(): Promise<PeerGoneError> {
    const gone = this.gone;
    if (gone !== undefined) return Promise.resolve(gone);
    return new Promise((resolve) => this.goneListeners.push(resolve));
  }

  /** Stops listening; what waits rejects as if the peer were gone. */
  close(reason = "the channel was closed"): void {
    this.fail(reason);
  }

  private fail(reason: string): void {
    if (this.gone !== undefined) return;
    this.gone = new PeerGoneError(`${this.options.peer} is gone: ${reason}`);
    this.unlisten();
    for (const w of this.waiting.values()) {
      clearTimeout(w.timer);
      w.reject(this.gone);
    }
    this.waiting.clear();
    for (const l of this.goneListeners.splice(0)) l(this.gone);
  }

  private receive(m: unknown): void {
    const e = m as Envelope | null;
    if (e === null || typeof e !== "object" || e.fn !== 1) return;
    switch (e.t) {
      case "req":
        this.serve(e.id, e.kind, e.body);
        return;
      case "ok":
      case "err": {
        const w = this.waiting.get(e.id);
        if (w === undefined) return; // past its deadline
        this.waiting.delete(e.id);
        clearTimeout(w.timer);
        if (e.t === "ok") w.resolve(e.body);
        else w.reject(new RemoteError(e.error));
        return;
      }
      case "evt":
        for (const l of this.listeners.get(e.kind) ?? []) l(e.body as never);
        return;
    }
  }

  private serve(id: number, kind: string, body: unknown): void {
    const handler = this.handlers.get(kind);
    const reply = (r: Envelope) => {
      this.endpoint.post(r);
    };
    if (handler === undefined) {
      reply({ fn: 1, t: "err", id, error: { name: "Error", message: `no handler for ${kind}` } });
      return;
    }
    // Never a synchronous throw out of a message listener: it would end the thread or process.
    Promise.resolve()
      .then(() => handler(body as never))
      .then(
        (value) => reply({ fn: 1, t: "ok", id, body: value }),
        (err: unknown) => reply({ fn: 1, t: "err", id, error: toWire(err) }),
      );
  }
}

/** The parent's side of a worker thread; the peer is gone when the thread exits. */
export function workerEndpoint(worker: Worker): Endpoint {
  let open = true;
  return {
    post(message) {
      if (!open) return false;
      worker.postMessage(message);
      return true;
    },
    listen(onMessage, onClose) {
      const onExit = (code: number) => {
        open = false;
        onClose(`exited (code ${code})`);
      };
      const onError = (e: Error) => {
        open = false;
        onClose(`failed: ${e.message}`);
      };
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      worker.once("error", onError);
      return () => {
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        worker.off("error", onError);
      };
    },
  };
}

/** A worker thread's side (its parentPort); the parent going away ends the thread anyway. */
export function portEndpoint(port: MessagePort): Endpoint {
  let open = true;
  return {
    post(message) {
      if (!open) return false;
      port.postMessage(message);
      return true;
    },
    listen(onMessage, onClose) {
      const closed = () => {
        open = false;
        onClose("its port closed");
      };
      port.on("message", onMessage);
      port.once("close", closed);
      return () => {
        port.off("message", onMessage);
        port.off("close", closed);
      };
    },
  };
}

/** The primary's side of a cluster worker (a reader process). */
export function clusterWorkerEndpoint(worker: ClusterWorker): Endpoint {
  return {
    post(message) {
      if (!worker.isConnected()) return false;
      // A send racing the worker's death fails on its closed channel: the exit event follows.
      worker.send(message as object, undefined, () => {});
      return true;
    },
    listen(onMessage, onClose) {
      let done = false;
      const closed = (reason: string) => {
        if (done) return;
        done = true;
        onClose(reason);
      };
      const onExit = (code: number | null, signal: string | null) =>
        closed(signal === null ? `exited (code ${code})` : `killed (${signal})`);
      const onDisconnect = () => closed("disconnected");
      // Without an error listener a failed send would end the primary.
      const onError = () => {};
      worker.on("message", onMessage);
      worker.once("exit", onExit);
      worker.once("disconnect", onDisconnect);
      worker.on("error", onError);
      return () => {
        worker.off("message", onMessage);
        worker.off("exit", onExit);
        worker.off("disconnect", onDisconnect);
        worker.off("error", onError);
      };
    },
  };
}

/** This process's IPC with its parent (a reader process's side); gone when it disconnects. */
export function processEndpoint(): Endpoint {
  return {
    post(message) {
      if (process.send === undefined || !process.connected) return false;
      process.send(message as object, undefined, undefined, () => {});
      return true;
    },
    listen(onMessage, onClose) {
      const onDisconnect = () => onClose("disconnected");
      process.on("message", onMessage);
      process.once("disconnect", onDisconnect);
      return () => {
        process.off("message", onMessage);
        process.off("disconnect", onDisconnect);
      };
    },
  };
}

/** Whether this process is a cluster worker (a reader) with IPC to its primary. */
export function hasParentChannel(): boolean {
  return cluster.isWorker && process.send !== undefined;
}
