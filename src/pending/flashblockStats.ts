// Timings of the flashblocks the RPC thread applied: how long each took to build, how long it
// took to reach RPC readers after it was built, and the interval between consecutive ones.
// Bounded: the newest `capacity` samples.

export type FlashblockTimings = {
  readonly buildMs: readonly number[];
  /** Built (in the sequencer) → visible to RPC readers. */
  readonly visibleLagMs: readonly number[];
  readonly intervalMs: readonly number[];
  readonly count: number;
  readonly lastAppliedAt: number | undefined;
};

export class FlashblockStats {
  private readonly build: number[] = [];
  private readonly lag: number[] = [];
  private readonly interval: number[] = [];
  private lastPublished: number | undefined;
  private lastApplied: number | undefined;
  private total = 0;
  private readonly listeners: ((buildMs: number, visibleLagMs: number) => void)[] = [];

  constructor(private readonly capacity = 10_000) {}

  /** Flashblocks applied so far. */
  get count(): number {
    return this.total;
  }

  /** When the newest flashblock reached RPC readers (epoch ms), if any has. */
  get lastAppliedAt(): number | undefined {
    return this.lastApplied;
  }

  /** Calls `fn` with each flashblock's build time and lag as it is recorded (metrics histograms). */
  onRecord(fn: (buildMs: number, visibleLagMs: number) => void): void {
    this.listeners.push(fn);
  }

  private push(list: number[], value: number): void {
    list.push(value);
    if (list.length > this.capacity) list.shift();
  }

  /**
   * One flashblock applied. `timed` false: published before this process followed the chain (a
   * joining reader's current block, updates buffered at start); counted, but its build time and
   * lag are not observed: the lag would be the follower's start, not the chain's delivery.
   */
  record(buildMs: number, publishedAt: number, appliedAt: number, timed = true): void {
    this.total++;
    if (!timed) {
      this.lastPublished = publishedAt;
      this.lastApplied = appliedAt;
      return;
    }
    this.push(this.build, buildMs);
    this.push(this.lag, appliedAt - publishedAt);
    if (this.lastPublished !== undefined)
      this.push(this.interval, publishedAt - this.lastPublished);
    this.lastPublished = publishedAt;
    this.lastApplied = appliedAt;
    for (const fn of this.listeners) fn(buildMs, appliedAt - publishedAt);
  }

  snapshot(): FlashblockTimings {
    return {
      buildMs: [...this.build],
      visibleLagMs: [...this.lag],
      intervalMs: [...this.interval],
      count: this.total,
      lastAppliedAt: this.lastApplied,
    };
  }
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
