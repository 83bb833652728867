// How long NATS has been out of reach, and saying so: a warning UNREACHABLE_WARN_MS after it
// went (or after start), again every UNREACHABLE_REPEAT_MS while it lasts, and the reason
// /readyz gives. Its own file, on a clock, so that the schedule is tested without waiting.
import { type Clock, systemClock } from "../util/clock.ts";

/** An unreachable NATS is reported this soon after start or a disconnection… */
export const UNREACHABLE_WARN_MS = 2_000;
/** …and again this often while it lasts. */
export const UNREACHABLE_REPEAT_MS = 10_000;

export type DownWatch = {
  /** NATS is out of reach from now (nothing changes if it already was). */
  down(): void;
  /** NATS is usable again. */
  up(): void;
  /** Why NATS cannot be used; undefined while it can, or has been out of reach only briefly. */
  reason(): string | undefined;
  stop(): void;
};

export function watchDown(opts: {
  /** The servers, as the messages name them. */
  readonly where: string;
  /** Says it, with how long (whole seconds) NATS has been out of reach. */
  readonly warn: (seconds: number) => void;
  readonly clock?: Clock;
}): DownWatch {
  const clock = opts.clock ?? systemClock;
  let since: number | undefined;
  let cancel = () => {};
  const seconds = (from: number) => Math.round((clock.now() - from) / 1000);
  const warn = () => {
    if (since === undefined) return;
    opts.warn(seconds(since));
    cancel = clock.schedule(warn, UNREACHABLE_REPEAT_MS);
  };
  return {
    down() {
      if (since !== undefined) return;
      since = clock.now();
      cancel = clock.schedule(warn, UNREACHABLE_WARN_MS);
    },
    up() {
      since = undefined;
      cancel();
    },
    reason: () =>
      since === undefined || clock.now() - since < UNREACHABLE_WARN_MS
        ? undefined
        : `NATS at ${opts.where} unreachable for ${seconds(since)} s`,
    stop() {
      since = undefined;
      cancel();
    },
  };
}
