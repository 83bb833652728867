import assert from "node:assert/strict";
import { test } from "node:test";
import { RateLimiter } from "./rateLimit.ts";

test("token bucket: burst, refill at the rate, batches cost their calls, Retry-After", () => {
  let now = 0;
  const limiter = new RateLimiter({ rate: 2, burst: 4 }, () => now);
  assert.equal(limiter.take("a", 3), undefined);
  assert.equal(limiter.take("a", 1), undefined);
  const refused = limiter.take("a", 1);
  assert.equal(refused?.status, 429);
  assert.equal(refused?.headers?.["retry-after"], "1");
  now += 1000; // +2 tokens
  assert.equal(limiter.take("a", 2), undefined);
  assert.equal(limiter.take("b", 4), undefined, "buckets are per client");
  assert.equal(
    limiter.take("c", 10)?.headers?.["retry-after"],
    "5",
    "more than the burst: wait for all of it",
  );
});

test("a shared limiter: a share of the burst to start, the others' spending charged here", () => {
  let now = 0;
  const a = new RateLimiter({ rate: 2, burst: 4 }, () => now, { share: 0.5 });
  const b = new RateLimiter({ rate: 2, burst: 4 }, () => now, { share: 0.5 });
  // Two processes together allow one burst, not two.
  assert.equal(a.take("c", 2), undefined);
  assert.equal(a.take("c", 1)?.status, 429);
  assert.equal(b.take("c", 2), undefined);
  assert.deepEqual(a.drainTaken(), [["c", 2]]);
  assert.deepEqual(a.drainTaken(), [], "drained");
  // After 2 s each bucket refilled 4 (to the full burst); b's spending of 3 is charged to a.
  now += 2000;
  assert.equal(b.take("c", 3), undefined);
  a.charge("c", 3);
  assert.equal(a.take("c", 1), undefined);
  assert.equal(a.take("c", 1)?.status, 429, "4 − 3 charged − 1 taken leaves nothing");
  const unshared = new RateLimiter({ rate: 2, burst: 4 }, () => now);
  unshared.take("c", 1);
  assert.deepEqual(unshared.drainTaken(), [], "an unshared limiter records nothing");
});
