// Which process of a node this one is: the primary, or a --rpc-workers reader forked by it with
// its slot in the environment (node/readerHost.ts). Read here, once, into the plan.
import cluster from "node:cluster";
import type { ProcessRole } from "../node/plan.ts";
import { READER_ENV, READER_SLOT_ENV } from "../node/readerSlot.ts";

export function processRole(): ProcessRole {
  const count = process.env[READER_ENV];
  if (!cluster.isWorker || count === undefined) return { kind: "primary" };
  return {
    kind: "reader",
    count: Number(count),
    slot: Number(process.env[READER_SLOT_ENV] ?? "0"),
  };
}

export function isReader(): boolean {
  return processRole().kind === "reader";
}
