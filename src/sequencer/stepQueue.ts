// The sequencer's one line of work: every step on the chain (a transaction's intake, a flashblock
// tick, a seal, a dev method) runs alone, in order, so none sees another half-done. Execution of
// the pool is background work: one transaction per step, run only when no other step waits, with
// the event loop let through after each (the flashblock timer, the messages that bring new
// transactions) — so a backlog runs back to back, yet intake and ticks wait for at most one
// transaction. Ticks go ahead of the other waiting steps.

/** How long queued steps may hold back waiting background work: then one background step runs. */
const BACKGROUND_SHARE_MS = 20;

type Step = () => Promise<void>;

export class StepQueue {
  private readonly urgent: Step[] = [];
  private readonly waiting: Step[] = [];
  private running = false;
  /** Whether the background may have work (it said so, or a step may have given it some). */
  private backgroundDue = false;
  private idleWaiters: Array<() => void> = [];

  /**
   * @param background one background step; whether it did something (so there may be more).
   * @param mayHaveWork whether a step just run may have given the background work.
   */
  constructor(
    private readonly background: () => Promise<boolean>,
    private readonly mayHaveWork: () => boolean,
  ) {}

  /** Runs `fn` after the steps queued before it; `urgent`: before every non-urgent one. */
  run<T>(fn: () => Promise<T>, urgent = false): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      (urgent ? this.urgent : this.waiting).push(() =>
        Promise.resolve().then(fn).then(resolve, reject),
      );
      void this.pump();
    });
  }

  /** The background has work: it runs as soon as no step waits. */
  wake(): void {
    this.backgroundDue = true;
    void this.pump();
  }

  /** Resolves once nothing runs or waits (background work may remain). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      let busySince = performance.now();
      for (;;) {
        const shareDue = this.backgroundDue && performance.now() - busySince > BACKGROUND_SHARE_MS;
        const step = shareDue ? undefined : (this.urgent.shift() ?? this.waiting.shift());
        if (step !== undefined) {
          await step();
          if (this.mayHaveWork()) this.backgroundDue = true;
          continue;
        }
        if (!this.backgroundDue) break;
        this.backgroundDue = await this.background().catch(() => false);
        busySince = performance.now();
        // The event loop runs between two transactions: the flashblock timer, new submissions.
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    } finally {
      this.running = false;
      for (const resolve of this.idleWaiters.splice(0)) resolve();
    }
  }
}
