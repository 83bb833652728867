// The primary of a node served by several processes (`--rpc-workers N`): it forks N readers
// (node:cluster workers, which share the listening socket), relays what each reader's rate
// limiters spend to the others, answers /metrics with every reader's registry summed, and
// replaces a reader that dies: its clients see connection errors only.
import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry } from "prom-client";
import type { Logger } from "../log/logger.ts";
import type { PrimaryMessage, ReaderMessage } from "./readerLink.ts";

/** Set in a reader's environment: the number of readers (its presence makes a process one). */
export const READER_ENV = "FLASHNODE_READER_OF";
/** Set in a reader's environment: its slot, 0..N-1 (a replacement takes the slot of the dead). */
export const READER_SLOT_ENV = "FLASHNODE_READER_SLOT";

export type ReaderCluster = {
  readonly url: string;
  readonly dedicatedUrl: string;
  /** Reader process ids, current ones. */
  pids(): number[];
  close(): Promise<void>;
};

export function isReader(): boolean {
  return cluster.isWorker && process.env[READER_ENV] !== undefined;
}

export function readerCount(): number {
  return Number(process.env[READER_ENV] ?? "1");
}

/** This reader's slot (0 in a process that is not one). */
export function readerSlot(): number {
  return Number(process.env[READER_SLOT_ENV] ?? "0");
}

/** Forks `readers` processes running this CLI with `argv`; resolves once all of them listen. */
export async function startReaderCluster(opts: {
  readonly readers: number;
  readonly argv: readonly string[];
  readonly logger: Logger;
  /** Messages the cluster itself does not handle (dev's chain stream and transactions). */
  readonly onMessage?: (from: Worker, m: ReaderMessage) => void;
  readonly onExit?: (w: Worker) => void;
}): Promise<ReaderCluster> {
  const log = opts.logger.child({ module: "readers" });
  // "advanced": chain updates carry Uint8Array and bigint.
  cluster.setupPrimary({ args: [...opts.argv], silent: false, serialization: "advanced" });
  const aggregator = new AggregatorRegistry();
  const workers = new Set<Worker>();
  const bySlot = new Map<number, Worker>();
  let closing = false;

  const post = (w: Worker, m: PrimaryMessage) => {
    if (w.isConnected()) w.send(m);
  };
  const onMessage = (from: Worker, m: ReaderMessage) => {
    if (m.type === "flashnode:spent") {
      for (const w of workers)
        if (w !== from) post(w, { type: "flashnode:charge", entries: m.entries });
    } else if (m.type === "flashnode:filterCall") {
      const holder = bySlot.get(m.slot);
      if (holder !== undefined) post(holder, m);
      // No such reader: the asker's timeout answers "filter not found".
    } else if (m.type === "flashnode:filterReply") {
      const asker = bySlot.get(m.from);
      if (asker !== undefined) post(asker, m);
    } else if (m.type === "flashnode:metrics") {
      aggregator.clusterMetrics().then(
        (text) => post(from, { type: "flashnode:metricsText", id: m.id, text }),
        (e: unknown) =>
          post(from, {
            type: "flashnode:metricsText",
            id: m.id,
            text: `# ${(e as Error).message}\n`,
          }),
      );
    } else opts.onMessage?.(from, m);
  };

  const fork = (slot: number): Promise<{ url: string; dedicatedUrl: string }> => {
    const w = cluster.fork({ [READER_ENV]: String(opts.readers), [READER_SLOT_ENV]: String(slot) });
    workers.add(w);
    bySlot.set(slot, w);
    w.on("message", (m: ReaderMessage) => onMessage(w, m));
    // A send racing the reader's death fails on its closed channel: without a listener, that
    // error would end the primary. The exit that follows replaces the reader.
    w.on("error", (e: Error) => log.debug({ pid: w.process.pid, err: e }, "reader channel error"));
    w.once("exit", (code, signal) => {
      workers.delete(w);
      if (bySlot.get(slot) === w) bySlot.delete(slot);
      opts.onExit?.(w);
      if (closing) return;
      log.warn({ pid: w.process.pid, code, signal }, "reader exited; starting another");
      fork(slot).catch((e: unknown) => log.error({ err: e }, "reader failed to start"));
    });
    return new Promise((resolve, reject) => {
      const onListening = (m: ReaderMessage) => {
        if (m.type !== "flashnode:listening") return;
        w.off("message", onListening);
        resolve({ url: m.url, dedicatedUrl: m.dedicatedUrl });
      };
      w.on("message", onListening);
      w.once("exit", (code) => reject(new Error(`reader exited (${code}) before it listened`)));
    });
  };

  let first: { url: string; dedicatedUrl: string };
  try {
    [first] = (await Promise.all(
      Array.from({ length: opts.readers }, (_, slot) => fork(slot)),
    )) as [{ url: string; dedicatedUrl: string }];
  } catch (e) {
    closing = true;
    for (const w of workers) w.kill();
    throw e;
  }
  return {
    url: first.url,
    dedicatedUrl: first.dedicatedUrl,
    pids: () => [...workers].map((w) => w.process.pid ?? 0),
    async close() {
      closing = true;
      await Promise.all(
        [...workers].map(
          (w) =>
            new Promise<void>((resolve) => {
              w.once("exit", () => resolve());
              w.kill("SIGTERM");
            }),
        ),
      );
    },
  };
}
