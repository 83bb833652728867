// Token buckets per client: `rate` calls per second refill, `burst` the bucket size. A batch
// costs its number of calls. Idle buckets are dropped so memory stays bounded.
import type { Refusal } from "../rpc/method.ts";

export type RateLimit = { readonly rate: number; readonly burst: number };

type Bucket = { tokens: number; at: number };

/** proxyd's over-rate-limit answer. */
export function overRateLimit(retryAfterSeconds: number): Refusal {
  return {
    status: 429,
    code: -32016,
    message: "over rate limit",
    headers: { "retry-after": String(Math.max(1, Math.ceil(retryAfterSeconds))) },
  };
}

/**
 * Several processes serving one node each keep a limiter: `share` (1/N) of the burst is what a
 * new bucket starts with, so N fresh buckets together never allow more than one burst, and every
 * process charges the others' spending (`drainTaken` here, `charge` there), so the refill rate
 * holds for the node as a whole.
 */
export type SharedLimit = { readonly share: number };

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweeps = 0;
  /** Tokens taken here since the last drain, per key (only when shared). */
  private readonly taken: Map<string, number> | undefined;
  private readonly initial: number;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
    shared?: SharedLimit,
  ) {
    this.taken = shared === undefined ? undefined : new Map();
    this.initial = limit.burst * (shared?.share ?? 1);
  }

  private bucket(key: string, t: number): Bucket {
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.initial, at: t };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.limit.burst, b.tokens + ((t - b.at) / 1000) * this.limit.rate);
      b.at = t;
    }
    return b;
  }

  /** Spending by another process of the node: taken from this bucket too (it may go below 0). */
  charge(key: string, cost: number): void {
    const b = this.bucket(key, this.now());
    b.tokens = Math.max(-this.limit.burst, b.tokens - cost);
  }

  /** What this process took since the last call, per key (empty unless shared). */
  drainTaken(): Array<[string, number]> {
    if (this.taken === undefined || this.taken.size === 0) return [];
    const out = [...this.taken];
    this.taken.clear();
    return out;
  }

  /** Takes `cost` tokens for `key`; the refusal (with Retry-After) when there are too few. */
  take(key: string, cost: number): Refusal | undefined {
    const t = this.now();
    const b = this.bucket(key, t);
    if (++this.sweeps % 10_000 === 0) this.sweep(t);
    if (b.tokens >= cost) {
      b.tokens -= cost;
      if (this.taken !== undefined) this.taken.set(key, (this.taken.get(key) ?? 0) + cost);
      return undefined;
    }
    const missing = cost > this.limit.burst ? cost : cost - b.tokens;
    return overRateLimit(missing / this.limit.rate);
  }

  private sweep(t: number): void {
    const full = (this.limit.burst / this.limit.rate) * 1000;
    for (const [key, b] of this.buckets) if (t - b.at > full) this.buckets.delete(key);
  }

  get size(): number {
    return this.buckets.size;
  }
}
