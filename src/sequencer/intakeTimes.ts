// When each pooled transaction entered the sequencer's intake, kept until it runs into a
// flashblock: the start of its send → pre-confirmed latency (docs/rpc.md,
// flashnode_getTransactionTimes). Bounded by the pool: what the pool no longer holds (replaced,
// dropped) is forgotten at the seal.

export class IntakeTimes {
  private readonly times = new Map<string, number>();

  get size(): number {
    return this.times.size;
  }

  /** `hash`: 0x-hex; `at`: epoch ms. */
  set(hash: string, at: number): void {
    this.times.set(hash, at);
  }

  /** The intake time of a transaction running now; forgotten once taken. */
  take(hash: string): number | undefined {
    const at = this.times.get(hash);
    if (at !== undefined) this.times.delete(hash);
    return at;
  }

  /** Forgets the transactions the pool no longer holds. */
  prune(pooled: (hash: string) => boolean): void {
    for (const hash of this.times.keys()) if (!pooled(hash)) this.times.delete(hash);
  }
}

/** Now, as epoch ms with sub-millisecond precision (the same clock as `publishedAt`). */
export function epochNow(): number {
  return performance.timeOrigin + performance.now();
}
