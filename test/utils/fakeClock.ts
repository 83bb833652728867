// A clock that moves only when a test says so: timers fire, in order, inside advance().
import type { Clock } from "../../src/util/clock.ts";

type FakeTimer = { at: number; fn: () => void; live: boolean };

export class FakeClock implements Clock {
  t = 1_000_000;
  readonly #timers: FakeTimer[] = [];

  now(): number {
    return this.t;
  }

  schedule(fn: () => void, ms: number): () => void {
    const timer = { at: this.t + ms, fn, live: true };
    this.#timers.push(timer);
    return () => {
      timer.live = false;
    };
  }

  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      let next: FakeTimer | undefined;
      for (const timer of this.#timers)
        if (timer.live && timer.at <= end && (next === undefined || timer.at < next.at))
          next = timer;
      if (next === undefined) break;
      next.live = false;
      this.t = next.at;
      next.fn();
    }
    this.t = end;
    // Fired and cancelled timers are of no further use.
    for (let i = this.#timers.length - 1; i >= 0; i--)
      if (!this.#timers[i]!.live) this.#timers.splice(i, 1);
  }
}
