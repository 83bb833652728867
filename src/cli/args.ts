/** A command-line mistake: printed as one line, exit code 1. */
export class UsageError extends Error {
  readonly code = "USAGE";
}
