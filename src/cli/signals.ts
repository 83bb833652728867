// How a node stops on a signal, whatever its role and whatever its peers are doing. The first
// SIGINT or SIGTERM aborts the one stop signal: a start still under way gives up, a running node
// closes its parts in reverse order. A second signal, or a stop still unfinished after
// STOP_DEADLINE_MS (a peer that holds a part up: a frozen upstream, say), ends the process at
// once. A datadir's LOCK goes with the process either way (store/datadir.ts).
import { type Clock, systemClock } from "../util/clock.ts";
import { StopRequested } from "../util/errors.ts";

/** A stop asked for by a signal is done within 5 s: this, and the process's exit after it. */
export const STOP_DEADLINE_MS = 4_000;

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Where signals come from (the process; a test's emitter). */
export type SignalSource = {
  on(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  off(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
};

export type StopSignals = {
  /** Aborted by the first signal. */
  readonly signal: AbortSignal;
  /** The node has stopped by itself: signals are the process's own again. */
  dispose(): void;
};

export function onStopSignals(o: {
  /** The first signal: begin stopping (`signal` is aborted already). */
  readonly stop: (name: string) => void;
  /** A second signal, or the deadline: end the process now. */
  readonly force: (why: string) => void;
  readonly source?: SignalSource;
  readonly clock?: Clock;
  readonly deadlineMs?: number;
}): StopSignals {
  const source = o.source ?? process;
  const clock = o.clock ?? systemClock;
  const deadlineMs = o.deadlineMs ?? STOP_DEADLINE_MS;
  const controller = new AbortController();
  let cancelDeadline: () => void = () => {};
  let forced = false;
  const force = (why: string) => {
    if (forced) return;
    forced = true;
    cancelDeadline();
    o.force(why);
  };
  const listener = (name: string) => () => {
    if (controller.signal.aborted) {
      force(`${name} again`);
      return;
    }
    controller.abort(new StopRequested(`stopped by ${name}`));
    cancelDeadline = clock.schedule(
      () => force(`shutdown unfinished after ${deadlineMs / 1000} s`),
      deadlineMs,
    );
    o.stop(name);
  };
  const listeners = SIGNALS.map((name) => [name, listener(name)] as const);
  for (const [name, l] of listeners) source.on(name, l);
  return {
    signal: controller.signal,
    dispose() {
      cancelDeadline();
      for (const [name, l] of listeners) source.off(name, l);
    },
  };
}
