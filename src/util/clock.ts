// Time and timers as a value, so that code which acts on elapsed time can be tested by moving
// a fake clock instead of waiting (test/utils/fakeClock.ts).

export type Clock = {
  /** Milliseconds; only differences are meaningful. */
  now(): number;
  /** Runs `fn` once, `ms` from now; returns its canceller. */
  schedule(fn: () => void, ms: number): () => void;
};

export const systemClock: Clock = {
  now: () => performance.now(),
  schedule: (fn, ms) => {
    const t = setTimeout(fn, ms);
    return () => clearTimeout(t);
  },
};
