// `batch`: 0 to 5,000 items of calls, notifications and invalid entries.
import { envelope } from "./calls.ts";
import { type Json, toJson } from "./json.ts";
import { jsonPost, pickRoute } from "./requests.ts";
import type { Rng } from "./rng.ts";
import type { CaseEnv, HttpCase } from "./types.ts";
import { wrongEnvelope } from "./wrongTypes.ts";

export function batchItem(rng: Rng, env: CaseEnv): Json {
  return rng.weighted<() => Json>([
    [10, () => envelope(rng, env, rng.int(100_000))],
    [2, () => envelope(rng, env, undefined)], // notification
    [2, () => wrongEnvelope(rng, env)[1]],
    [1, () => rng.pick<Json>([1, null, "x", [], {}, true])],
  ])();
}

export function batch(rng: Rng, env: CaseEnv, index: number): HttpCase {
  const size = rng.weighted<() => number>([
    [10, () => rng.range(1, 30)],
    [2, () => rng.range(31, 300)],
    [1, () => 0],
    [1, () => rng.pick([999, 1000, 1001])],
    [1, () => rng.range(1002, 5000)],
  ])();
  // Big batches use cheap calls so that one case does not run for seconds.
  const cheap = size > 300;
  const items: Json[] = [];
  for (let i = 0; i < size; i++) {
    items.push(
      cheap && rng.chance(0.9)
        ? {
            jsonrpc: "2.0",
            id: i,
            method: rng.pick(["eth_chainId", "eth_blockNumber", "eth_getBalance"]),
            params: ["0x0000000000000000000000000000000000000000", "latest"].slice(0, rng.int(3)),
          }
        : batchItem(rng, env),
    );
  }
  const allNotes = rng.chance(0.03);
  const body = allNotes
    ? toJson(Array.from({ length: rng.range(1, 5) }, () => envelope(rng, env, undefined)))
    : toJson(items);
  const variant = allNotes
    ? "notifications"
    : size === 0
      ? "empty"
      : size > 1000
        ? ">1000"
        : size >= 999
          ? "999-1000"
          : size > 30
            ? "31-1000"
            : "1-30";
  return jsonPost({ index, kind: "batch", variant }, pickRoute(rng, env), Buffer.from(body));
}
