// Time and timers as a value, so that code which acts on elapsed time can be tested by moving
// a fake clock instead of waiting (test/utils/fakeClock.ts).

export type Clock = {
  /** Milliseconds; only differences are meaningful. */
  now(): number;
  /** Runs `fn` once, `ms` from now; returns its canceller. Never keeps the process alive. */
  schedule(fn: () => void, ms: number): () => void;
};

export const systemClock: Clock = {
  now: () => performance.now(),
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // Watchdogs and heartbeats: what they watch keeps the process alive, not they.
    t.unref();
    return () => clearTimeout(t);
  },
};
