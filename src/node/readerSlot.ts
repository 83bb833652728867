// Which process this is, of a node served by several (`--rpc-workers`): the primary forks its
// readers (readerHost.ts) with these in their environment; the CLI reads them once, at the edge
// (cli/processRole.ts), into the reader's plan (NodePlan.process). Nothing else reads them.

/** Set in a reader's environment: the number of readers (its presence makes a process one). */
export const READER_ENV = "FLASHNODE_READER_OF";
/** Set in a reader's environment: its slot, 0..N-1 (a replacement takes the slot of the dead). */
export const READER_SLOT_ENV = "FLASHNODE_READER_SLOT";
