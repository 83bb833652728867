// The bench commands' chart writers, on synthetic figures (the benchmarks themselves are not run
// by tests): valid SVG, every series and group present, values labelled, text escaped.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  cadenceChart,
  latencyChart,
  percentileCurve,
  preconfirmLatencyChart,
  scaleReadsChart,
  throughputChart,
  type WorkloadFigures,
} from "../../bench/lib/benchCharts.ts";
import { assertWellFormedXml } from "../utils/xml.ts";

const count = (svg: string, re: RegExp) => [...svg.matchAll(re)].length;

const FIGURES: WorkloadFigures[] = [
  {
    workload: "eth_getStorageAt latest",
    servers: [
      {
        server: "flashnode",
        callsPerSecond: 17_897,
        latency: { p50: 1.61, p75: 1.9, p90: 2.4, p99: 4.2 },
      },
      {
        server: "anvil --silent",
        callsPerSecond: 29_590,
        latency: { p50: 0.98, p75: 1.1, p90: 1.3, p99: 2.7 },
      },
      {
        server: "bare node:http",
        callsPerSecond: 18_200,
        latency: { p50: 1.55, p75: 1.8, p90: 2.1, p99: 3.9 },
      },
    ],
  },
  {
    workload: "batch of 100 <eth_getStorageAt> & more",
    servers: [
      { server: "flashnode", callsPerSecond: 193_749, latency: { p50: 15.2, p99: 45.5 } },
      { server: "anvil --silent", callsPerSecond: 224_106, latency: { p50: 13.1, p99: 28.8 } },
    ],
  },
];

test("npm run bench: throughput by workload for flashnode, anvil and the bare ceiling", () => {
  const svg = throughputChart(
    "npm run bench, pinned: calls per second",
    FIGURES,
    "servers on CPU 1",
  );
  assert.equal(assertWellFormedXml(svg), "svg");
  for (const name of ["flashnode", "anvil --silent", "bare node:http"])
    assert.ok(svg.includes(`>${name}</text>`), `legend names ${name}`);
  assert.ok(svg.includes(">eth_getStorageAt latest</text>"));
  assert.ok(svg.includes("batch of 100 &lt;eth_getStorageAt&gt; &amp; more"), "escaped");
  // One bar per server per workload: 3 + 2, beside the background and 3 legend swatches.
  assert.equal(count(svg, /<rect /g), 1 + 3 + 5);
  assert.ok(svg.includes(">17.9k</text>") && svg.includes(">194k</text>"), "values labelled");
  assert.ok(svg.includes("(log scale)"));
});

test("npm run bench: the latency distribution of each server, per workload", () => {
  const svg = latencyChart("npm run bench, pinned: request latency distribution", FIGURES, "note");
  assertWellFormedXml(svg);
  for (const group of [
    "eth_getStorageAt latest: flashnode",
    "eth_getStorageAt latest: anvil --silent",
    "eth_getStorageAt latest: bare node:http",
    "batch of 100 &lt;eth_getStorageAt&gt; &amp; more: flashnode",
  ])
    assert.ok(svg.includes(`>${group}</text>`), group);
  for (const p of ["p50", "p75", "p90", "p99"]) assert.ok(svg.includes(`>${p}</text>`), p);
  // 4 percentiles × 3 servers + 2 (p50, p99 only) × 2 servers.
  assert.equal(count(svg, /<rect /g), 1 + 4 + 12 + 4);
  assert.ok(svg.includes(">45.50 ms</text>"));
});

test("npm run bench:flashblocks: cadence under load, and the pre-confirmation latency distribution", () => {
  const cadence = cadenceChart([
    {
      rate: 50,
      points: [
        [0.2, 201],
        [0.4, 199.5],
        [0.6, 203],
      ],
    },
    {
      rate: 800,
      points: [
        [0.2, 240],
        [0.4, 310],
      ],
    },
  ]);
  assertWellFormedXml(cadence);
  assert.equal(count(cadence, /<polyline /g), 2);
  assert.ok(cadence.includes(">50 tx/s</text>") && cadence.includes(">800 tx/s</text>"));

  const client = Array.from({ length: 150 }, (_, i) => 5 + ((i * 37) % 200));
  const node = client.map((v) => v - 3);
  const latency = preconfirmLatencyChart(
    [
      { name: "client: send → receipt visible", samples: client },
      { name: "node: intake → flashblock published", samples: node },
    ],
    "150 transfers",
  );
  assertWellFormedXml(latency);
  assert.equal(count(latency, /<polyline /g), 2);
  assert.ok(latency.includes(">node: intake → flashblock published</text>"));
  // 100 points per line: percentiles 1…99 and the maximum.
  const points = latency.match(/<polyline points="([^"]+)"/)![1]!.split(" ");
  assert.equal(points.length, 100);
});

test("percentileCurve: the value at each percentile and the maximum", () => {
  const curve = percentileCurve(Array.from({ length: 1000 }, (_, i) => 1000 - i));
  assert.equal(curve.length, 100);
  assert.deepEqual(curve[0], [1, 11]);
  assert.deepEqual(curve[49], [50, 501]);
  assert.deepEqual(curve[98], [99, 991]);
  assert.deepEqual(curve[99], [100, 1000]);
  assert.deepEqual(percentileCurve([]), []);
});

test("npm run bench:scale: historical-read latency by archive size", () => {
  const at = {
    latest: { head: 10_000, p50: 1.2, p99: 9.1 },
    near: { head: 10_000, p50: 2.5, p99: 14 },
  };
  const now = {
    latest: { head: 1_000_000, p50: 1.4, p99: 11.2 },
    near: { head: 1_000_000, p50: 3.1, p99: 20.5 },
  };
  const svg = scaleReadsChart(at, now);
  assertWellFormedXml(svg);
  for (const label of [
    "latest, 10,000 blocks",
    "latest, 1,000,000 blocks",
    "near head, 10,000 blocks",
    "near head, 1,000,000 blocks",
  ])
    assert.ok(svg.includes(`>${label}</text>`), label);
  assert.ok(svg.includes(">20.5 µs</text>") && svg.includes(">3.10 µs</text>"));
  assert.equal(count(svg, /<rect /g), 1 + 2 + 8);
});

test("the well-formedness check itself refuses broken SVG", () => {
  for (const bad of [
    "<svg><g></svg>",
    "<svg><text>a < b</text></svg>",
    "<svg><text>a & b</text></svg>",
    '<svg x="1" x="2"></svg>',
    "<svg></svg><svg></svg>",
    "<svg width=10></svg>",
  ])
    assert.throws(() => assertWellFormedXml(bad), bad);
});
