// Entry of every worker thread: worker threads do not inherit the TypeScript loader, so each
// registers it before importing its real (TypeScript) entry module.
import { workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
await import(workerData.entry);
