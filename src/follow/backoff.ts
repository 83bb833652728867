// Capped exponential backoff with jitter for re-dialling a stream: the first retry is quick (a
// proxy restart or a cut connection heals at once), later ones spread out so that many
// followers of one endpoint (Base allows 10 connections per IP) do not dial in lockstep. The cap
// is a second: a stream is back within a second of its endpoint's return, and a dead endpoint is
// dialled once every half second to a second, never in a tight loop.

export type BackoffOptions = {
  /** The first delay, before jitter. */
  readonly initialMs: number;
  /** No delay exceeds this. */
  readonly maxMs: number;
};

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 1_000 };

/**
 * The delay before attempt `attempt` (0 = the first retry): initial × 2^attempt capped at max,
 * then "equal jitter": a uniform draw from the upper half, so it never collapses to zero.
 * `random` returns a value in [0, 1).
 */
export function backoffDelay(attempt: number, opts: BackoffOptions, random: () => number): number {
  const exp = Math.min(opts.maxMs, opts.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(exp / 2 + (exp / 2) * random());
}
