// The sequencer's one line of work: every step on the chain (a transaction's intake, a flashblock
// tick, a seal, a dev method) runs alone, in order, so none sees another half-done. Execution of
// the pool is background work: one transaction per step, run only when no other step waits, with
// the event loop let through after each (the flashblock timer, the messages that bring new
// transactions) — so a backlog runs back to back, yet intake and ticks wait for at most one
// transaction. Ticks go ahead of the other waiting steps.

/** How long waiting steps may hold back the background: then one background step runs. */
const BACKGROUND_SHARE_MS = 20;
/**
 * After an intake, how long the background waits for the next one before it runs: while a burst
 * comes in, the thread that forwards it (on the same core, often) gets the CPU, so the burst is
 * accepted at the pace it is sent and executed after.
 */
const INTAKE_GAP_MS = 1;

export type StepKind = "tick" | "intake" | "step";

type Step = { readonly kind: StepKind; run(): Promise<void> };

export class StepQueue {
  private readonly urgent: Step[] = [];
  private readonly waiting: Step[] = [];
  private running = false;
  /** Whether the background may have work (it said so, or a step may have given it some). */
  private backgroundDue = false;
  /** Since when the background has waited behind steps. */
  private heldSince = 0;
  private idleWaiters: Array<() => void> = [];
  /** Wakes the pump waiting for the next intake (INTAKE_GAP_MS). */
  private arrived: (() => void) | undefined;

  /**
   * @param background one background step; whether it did something (so there may be more).
   * @param mayHaveWork whether a step just run may have given the background work.
   */
  constructor(
    private readonly background: () => Promise<boolean>,
    private readonly mayHaveWork: () => boolean,
  ) {}

  /** Runs `fn` after the steps queued before it; a tick before every other kind. */
  run<T>(fn: () => Promise<T>, kind: StepKind = "step"): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (kind === "tick" ? this.urgent : this.waiting).push({
        kind,
        run: () => Promise.resolve().then(fn).then(resolve, reject),
      });
      this.arrived?.();
      void this.pump();
    });
  }

  /** The background has work: it runs as soon as no step waits. */
  wake(): void {
    this.due();
    void this.pump();
  }

  private due(): void {
    if (!this.backgroundDue) this.heldSince = performance.now();
    this.backgroundDue = true;
  }

  /** Resolves once nothing runs or waits (background work may remain). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private next(): Step | undefined {
    return this.urgent.shift() ?? this.waiting.shift();
  }

  /** Waits up to `ms` for a step to be queued. */
  private waitForStep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(), ms);
      const done = () => {
        clearTimeout(timer);
        this.arrived = undefined;
        resolve();
      };
      this.arrived = done;
    });
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      let last: StepKind | undefined;
      for (;;) {
        const held = this.backgroundDue && performance.now() - this.heldSince > BACKGROUND_SHARE_MS;
        const step = held ? undefined : this.next();
        if (step !== undefined) {
          await step.run();
          last = step.kind;
          if (this.mayHaveWork()) this.due();
          continue;
        }
        if (!this.backgroundDue) break;
        if (last === "intake" && !held) {
          last = undefined;
          await this.waitForStep(INTAKE_GAP_MS);
          continue;
        }
        this.backgroundDue = await this.background().catch(() => false);
        this.heldSince = performance.now();
        last = undefined;
        // The event loop runs between two transactions: the flashblock timer, new submissions.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
