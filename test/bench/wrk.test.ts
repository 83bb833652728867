// Reading wrk --latency's output (what npm run bench charts and tabulates), on a captured sample.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseWrkOutput } from "../../bench/compare/wrk.ts";

const SAMPLE = `Running 5s test @ http://127.0.0.1:8545/
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.78ms  812.31us  21.40ms   90.00%
    Req/Sec    17.99k     1.02k   19.41k    75.00%
  Latency Distribution
     50%    1.61ms
     75%    1.90ms
     90%    2.40ms
     99%    4.20ms
  89512 requests in 5.00s, 14.68MB read
  Socket errors: connect 0, read 1, write 0, timeout 2
  Non-2xx or 3xx responses: 4
Requests/sec:  17897.12
Transfer/sec:      2.94MB
BAD 0
`;

test("wrk --latency: requests per second, the four percentiles, errors", () => {
  assert.deepEqual(parseWrkOutput(SAMPLE), {
    requests: 89512,
    badAnswers: 0,
    checked: true,
    requestsPerSecond: 17897.12,
    p50Ms: 1.61,
    p75Ms: 1.9,
    p90Ms: 2.4,
    p99Ms: 4.2,
    errors: 7,
  });
  const micro = parseWrkOutput(
    SAMPLE.replace("50%    1.61ms", "50%  812.00us").replace("99%    4.20ms", "99%    1.20s"),
  );
  assert.equal(micro.p50Ms, 0.812);
  assert.equal(micro.p99Ms, 1200);
  assert.throws(() => parseWrkOutput("wrk: connection refused"), /cannot parse wrk output/);
});
