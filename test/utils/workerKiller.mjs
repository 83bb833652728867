// Preloaded (`node --import`) by tests that must see one of a node's worker threads die as if it
// had crashed: on SIGUSR2, every worker thread whose entry module matches the environment's
// FLASHNODE_TEST_KILL_WORKER (a regular expression) is terminated. Nothing in the node knows.
import { syncBuiltinESMExports } from "node:module";
import threads from "node:worker_threads";

const pattern = process.env.FLASHNODE_TEST_KILL_WORKER;
if (threads.isMainThread && pattern !== undefined) {
  const live = new Set();
  const Original = threads.Worker;
  threads.Worker = class extends Original {
    constructor(file, options) {
      super(file, options);
      // startTsWorker (src/util/tsWorker.ts) names the real entry in workerData.
      this.entry = String(options?.workerData?.entry ?? file);
      live.add(this);
      this.once("exit", () => live.delete(this));
    }
  };
  syncBuiltinESMExports();
  process.on("SIGUSR2", () => {
    const re = new RegExp(pattern);
    for (const worker of live) if (re.test(worker.entry)) void worker.terminate();
  });
}
