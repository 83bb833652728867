// Command-line options of the fuzz harness and the fixed limits of its checks.
import { parseArgs } from "node:util";
import type { FuzzCase } from "./cases/types.ts";

export type FuzzOptions = {
  readonly seconds: number;
  readonly minRequests: number;
  readonly concurrency: number;
  readonly maxSeconds: number;
  readonly seed: number;
  /** kind or kind/variant-prefix: such cases are generated (indices stay stable) but not sent. */
  readonly exclude: readonly string[];
  readonly url: string | undefined;
  readonly dedicatedUrl: string | undefined;
  readonly replay: string | undefined;
  readonly nodeRateLimit: string;
};

/** A normal request that takes longer than this is a hang (the node's own limit is 30 s). */
export const REQUEST_TIMEOUT_MS = 45_000;
/** Bytes of an answer kept (the node caps batch answers at 25 MB); a longer one fails the JSON check. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** Parses argv; a bad number is a usage error (exit 2), an unknown flag throws. */
export function parseOptions(): FuzzOptions {
  const { values: opts } = parseArgs({
    options: {
      seconds: { type: "string", default: "60" },
      requests: { type: "string", default: "10000" },
      concurrency: { type: "string", default: "8" },
      seed: { type: "string" },
      url: { type: "string" },
      "dedicated-url": { type: "string" },
      "max-seconds": { type: "string", default: "300" },
      replay: { type: "string" },
      exclude: { type: "string" },
      "node-rate-limit": { type: "string", default: "0" },
    },
  });
  const options: FuzzOptions = {
    seconds: Number(opts.seconds),
    minRequests: Number(opts.requests),
    concurrency: Math.max(1, Number(opts.concurrency)),
    maxSeconds: Number(opts["max-seconds"]),
    seed: opts.seed === undefined ? Date.now() % 1_000_000_000 : Number(opts.seed),
    exclude: (opts.exclude ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
    url: opts.url,
    dedicatedUrl: opts["dedicated-url"],
    replay: opts.replay,
    nodeRateLimit: opts["node-rate-limit"],
  };
  for (const [name, v] of [
    ["seconds", options.seconds],
    ["requests", options.minRequests],
    ["concurrency", options.concurrency],
    ["seed", options.seed],
    ["max-seconds", options.maxSeconds],
  ] as const) {
    if (!Number.isFinite(v) || v < 0) {
      console.error(`--${name} must be a non-negative number`);
      process.exit(2);
    }
  }
  return options;
}

export function isExcluded(exclude: readonly string[], c: FuzzCase): boolean {
  return exclude.some((e) => e === c.kind || `${c.kind}/${c.variant}`.startsWith(e));
}

/** The harness only ever talks to the local machine. */
export function only127(u: string, what: string): URL {
  const url = new URL(u);
  if (url.hostname !== "127.0.0.1") {
    console.error(`${what} must be a 127.0.0.1 URL, got ${u}`);
    process.exit(2);
  }
  return url;
}
