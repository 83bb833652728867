import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { defineMethod, optional } from "../method.ts";
import { blockSummaryJson, ms } from "./format.ts";

/** Go float64 (encoding/json): a JSON number. */
function parseSince(raw: unknown): number {
  if (typeof raw === "number" && Number.isFinite(raw)) return raw;
  const kind =
    typeof raw === "string"
      ? "string"
      : typeof raw === "boolean"
        ? "bool"
        : Array.isArray(raw)
          ? "array"
          : "object";
  throw new InvalidParamsError(`json: cannot unmarshal ${kind} into Go value of type float64`);
}

/**
 * flashnode_getTimings(since?) → the node's own figures of the last minute, for the live page:
 * send → pre-confirmed latency per transaction (`[publishedAt, ms, hash]`), the interval between
 * consecutive flashblocks of the 200 ms grid (`[publishedAt, ms]`; index 0, published with the
 * seal, is not a slot), both only after `since` (epoch ms) when given; and the newest blocks with
 * their flashblocks. `live` is false on a node that follows no flashblocks stream (`serve`).
 */
export function getTimings(backend: Pick<RpcBackend, "timeline">, now: () => number = epochMs) {
  return defineMethod({
    params: [optional(parseSince)],
    handler: ([since]) => {
      const timeline = backend.timeline;
      const at = now();
      const from = since ?? 0;
      // Compared as rendered: a client hands back the (rounded) time of the last sample it has.
      const after = <T extends readonly [number, ...unknown[]]>(list: readonly T[]) =>
        list.filter((s) => ms(s[0]) > from);
      return {
        live: timeline !== undefined,
        now: ms(at),
        windowMs: timeline?.limits.windowMs ?? 0,
        keptTransactions: timeline?.limits.transactions ?? 0,
        preconfirmLatency: after(timeline?.latency(from - 1, at) ?? []).map(([t, v, hash]) => [
          ms(t),
          ms(v),
          hash,
        ]),
        flashblockInterval: after(timeline?.intervals(from - 1, at) ?? []).map(([t, v]) => [
          ms(t),
          ms(v),
        ]),
        blocks: (timeline?.blocks() ?? []).map(blockSummaryJson),
      };
    },
  });
}

function epochMs(): number {
  return performance.timeOrigin + performance.now();
}
