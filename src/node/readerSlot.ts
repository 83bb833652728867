// Which process this is, of a node served by several (`--rpc-workers`): the primary forks its
// readers with these in their environment.
import cluster from "node:cluster";

/** Set in a reader's environment: the number of readers (its presence makes a process one). */
export const READER_ENV = "FLASHNODE_READER_OF";
/** Set in a reader's environment: its slot, 0..N-1 (a replacement takes the slot of the dead). */
export const READER_SLOT_ENV = "FLASHNODE_READER_SLOT";

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
