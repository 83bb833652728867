import { Worker } from "node:worker_threads";

/** Starts a worker thread running a TypeScript module; its `workerData` is `{ entry, data }`. */
export function startTsWorker(entry: URL, data: unknown): Worker {
  return new Worker(new URL("./tsWorkerBoot.mjs", import.meta.url), {
    workerData: { entry: entry.href, data },
  });
}

/** The `data` given to startTsWorker, read inside the worker. */
export function tsWorkerData<T>(workerData: unknown): T {
  return (workerData as { data: T }).data;
}
