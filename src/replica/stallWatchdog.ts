// A JetStream consumer can go quiet without an error while its stream moves on (a server that
// restarted, a stream leader that died and was replaced): a replica's block and update
// consumers (blockConsumer.ts, updateConsumer.ts) watch for that and create theirs anew.
import { type Clock, systemClock } from "../util/clock.ts";
import type { NatsContext, NatsLink } from "./natsLink.ts";

export type StallWatchdog = {
  /** A message arrived. */
  seen(): void;
  stop(): void;
};

/**
 * Every `stallMs`, if nothing was seen for that long and `behind` says the stream holds newer
 * messages (or cannot tell), calls `restart` (once per stall).
 */
export function watchForStall(opts: {
  readonly link: NatsLink;
  readonly stallMs: number;
  readonly behind: (c: NatsContext) => Promise<boolean>;
  readonly restart: () => void;
  /** Tests move a fake one. */
  readonly clock?: Clock;
}): StallWatchdog {
  const clock = opts.clock ?? systemClock;
  let lastSeenAt = clock.now();
  const restart = () => {
    lastSeenAt = clock.now();
    opts.restart();
  };
  const check = () => {
    cancel = clock.schedule(check, opts.stallMs);
    const c = opts.link.current();
    if (c === undefined || clock.now() - lastSeenAt < opts.stallMs) return;
    // A stream that cannot even say where it ends (no leader yet, a request lost with a dead
    // server) is no reason to trust a silent consumer: restart then too.
    opts.behind(c).then(
      (behind) => {
        if (behind) restart();
      },
      () => restart(),
    );
  };
  let cancel = clock.schedule(check, opts.stallMs);
  return {
    seen: () => {
      lastSeenAt = clock.now();
    },
    stop: () => cancel(),
  };
}
