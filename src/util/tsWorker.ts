import { type MessagePort, Worker } from "node:worker_threads";
import {
  type Api,
  Channel,
  type ChannelOptions,
  PeerGoneError,
  portEndpoint,
  RemoteError,
  type WireError,
  workerEndpoint,
} from "./channel.ts";
import { WorkerDiedError } from "./errors.ts";

/**
 * Starts a worker thread running a module; its `workerData` is `{ entry, data }`. A compiled
 * entry (dist/, what `npm start` runs) starts as it is; a TypeScript one (the sources, run
 * through tsx) through tsWorkerBoot.mjs, which registers tsx in the new thread first.
 */
export function startTsWorker(entry: URL, data: unknown): Worker {
  const workerData = { entry: entry.href, data };
  if (entry.pathname.endsWith(".js")) return new Worker(entry, { workerData });
  return new Worker(new URL("./tsWorkerBoot.mjs", import.meta.url), { workerData });
}

/** The `data` given to startTsWorker, read inside the worker. */
export function tsWorkerData<T>(workerData: unknown): T {
  return (workerData as { data: T }).data;
}

/** What every worker thread says once: ready (with what its parent needs), or why it failed. */
export type StartEvents<Ready> = { readonly ready: Ready; readonly failed: WireError };

/**
 * Starts a worker thread and its channel; resolves once the worker says it is ready. A worker
 * that fails to start rejects with its error (an operator error keeps its code, so the CLI
 * prints it as one line) and is gone.
 */
export function startWorkerChannel<
  Theirs extends Api,
  Ready,
  Mine extends Api & { readonly events: StartEvents<Ready> },
>(
  entry: URL,
  data: unknown,
  options: ChannelOptions,
  /** Listens before the worker starts (what it says while starting: its log, say). */
  attach: (channel: Channel<Theirs, Mine>) => void = () => {},
): Promise<{ worker: Worker; channel: Channel<Theirs, Mine>; ready: Ready }> {
  const worker = startTsWorker(entry, data);
  const channel = new Channel<Theirs, Mine>(workerEndpoint(worker), options);
  attach(channel);
  return new Promise((resolve, reject) => {
    channel.on("ready", (ready) => resolve({ worker, channel, ready: ready as Ready }));
    channel.on("failed", (w) => {
      reject(new RemoteError(w as WireError));
      void worker.terminate();
    });
    channel.whenGone().then(reject);
  });
}

/** A worker thread's channel to its parent. */
export function parentChannel<Theirs extends Api, Mine extends Api>(
  port: MessagePort | null,
  peer: string,
): Channel<Theirs, Mine> {
  if (port === null) throw new PeerGoneError(`${peer}: started outside a worker thread`);
  return new Channel<Theirs, Mine>(portEndpoint(port), { peer, deadlineMs: 0 });
}

/**
 * A worker thread its client owns, ended once: asked to stop (within a deadline), then
 * terminated. Until the client asks, the thread's death is fatal to the node (`onFatal`).
 */
export class OwnedWorker {
  private stopping: Promise<void> | undefined;

  constructor(
    private readonly worker: Worker,
    gone: Promise<Error>,
    onFatal: (e: Error) => void,
  ) {
    void gone.then((e) => {
      if (this.stopping === undefined)
        onFatal(new WorkerDiedError(`${e.message}; the node stops`, { cause: e }));
    });
  }

  /** `ask`: the thread's own stop request; whatever it answers, the thread is terminated. */
  stop(ask: () => Promise<unknown>): Promise<void> {
    this.stopping ??= ask()
      .catch(() => {})
      .then(() => this.worker.terminate())
      .then(() => {});
    return this.stopping;
  }
}
