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

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private sweeps = 0;

  constructor(
    private readonly limit: RateLimit,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes `cost` tokens for `key`; the refusal (with Retry-After) when there are too few. */
  take(key: string, cost: number): Refusal | undefined {
    const t = this.now();
    let b = this.buckets.get(key);
    if (b === undefined) {
      b = { tokens: this.limit.burst, at: t };
      this.buckets.set(key, b);
    } else {
      b.tokens = Math.min(this.limit.burst, b.tokens + ((t - b.at) / 1000) * this.limit.rate);
      b.at = t;
    }
    if (++this.sweeps % 10_000 === 0) this.sweep(t);
    if (b.tokens >= cost) {
      b.tokens -= cost;
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
