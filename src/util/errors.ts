// The operator-error convention every layer follows: an error the operator must fix (a flag, a
// datadir, a port) carries a string `code` and is printed as one line by the CLI; anything else
// is a bug and keeps its stack.

/** A command-line mistake: printed as one line, exit code 1. */
export class UsageError extends Error {
  readonly code = "USAGE";
}

/**
 * Whether an error is the operator's to fix, printed as one line: flashnode's own errors carry a
 * string code (USAGE, DATADIR_UNAVAILABLE…), and so do the system's (ENOENT, ENOSPC…). Node's
 * ERR_* codes and errors without a code are programming errors.
 */
export function isOperatorError(e: unknown): e is Error & { code: string } {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof Error && typeof code === "string" && !code.startsWith("ERR_");
}

/** A thread the node cannot run without (the sequencer's, the follower's) has ended. */
export class WorkerDiedError extends Error {
  readonly code = "WORKER_DIED";
}

/** A signal came while a node was starting: the start gave up, leaving nothing running. */
export class StopRequested extends Error {
  readonly code = "STOP_REQUESTED";
}
