/** Events per second over a sliding window (bucketed by second). */
export class RateWindow {
  private readonly buckets = new Map<number, number>();

  constructor(private readonly windowMs: number) {}

  add(count: number, now = Date.now()): void {
    const second = Math.floor(now / 1000);
    this.buckets.set(second, (this.buckets.get(second) ?? 0) + count);
    const oldest = Math.floor((now - this.windowMs) / 1000);
    for (const s of this.buckets.keys()) if (s < oldest) this.buckets.delete(s);
  }

  perSecond(now = Date.now()): number {
    const oldest = Math.floor((now - this.windowMs) / 1000);
    let total = 0;
    for (const [s, n] of this.buckets) if (s >= oldest) total += n;
    return total / (this.windowMs / 1000);
  }
}
