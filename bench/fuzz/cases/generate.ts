// The case generator: case `index` of `seed` is a pure function of (seed, index), so any case can
// be replayed alone (`--replay i`) whatever the concurrency was. The draw order inside each family
// is part of that contract: reordering rng calls changes every case.
import { batch } from "./batch.ts";
import { validCall } from "./calls.ts";
import { toJson } from "./json.ts";
import { malformed } from "./malformedJson.ts";
import { rawHttp } from "./rawHttp.ts";
import { jsonPost, pickRoute } from "./requests.ts";
import { Rng } from "./rng.ts";
import { rpcKey } from "./rpcKey.ts";
import { dropped, slowBody, stall } from "./slowSockets.ts";
import { contentType, httpMethod, httpMisc, oversized } from "./transport.ts";
import type { CaseEnv, CaseKind, FuzzCase } from "./types.ts";
import { wsRaw, wsRpc, wsStream } from "./websocket.ts";
import { wrongEnvelope } from "./wrongTypes.ts";

const WEIGHTS: readonly (readonly [number, CaseKind])[] = [
  [34, "valid-call"],
  [12, "wrong-types"],
  [14, "malformed-json"],
  [8, "batch"],
  [1.5, "oversized"],
  [4, "content-type"],
  [4, "http-method"],
  [4, "rpc-key"],
  [2, "http-misc"],
  [3, "raw-http"],
  [1.2, "slow-body"],
  [0.8, "stall"],
  [3, "dropped"],
  [4, "ws-rpc"],
  [1.5, "ws-raw"],
  [1.5, "ws-stream"],
];

/** Case `index` of `seed`: deterministic, independent of every other case. */
export function generateCase(seed: number, index: number, env: CaseEnv): FuzzCase {
  const rng = new Rng(seed, index);
  const kind = rng.weighted(WEIGHTS);
  switch (kind) {
    case "valid-call":
      return validCall(rng, env, index);
    case "wrong-types": {
      const [variant, v] = wrongEnvelope(rng, env);
      return jsonPost({ index, kind, variant }, pickRoute(rng, env), Buffer.from(toJson(v)));
    }
    case "malformed-json": {
      const [variant, body] = malformed(rng, env);
      return jsonPost({ index, kind, variant }, pickRoute(rng, env), body);
    }
    case "batch":
      return batch(rng, env, index);
    case "oversized":
      return oversized(rng, env, index);
    case "content-type":
      return contentType(rng, env, index);
    case "http-method":
      return httpMethod(rng, env, index);
    case "rpc-key":
      return rpcKey(rng, env, index);
    case "http-misc":
      return httpMisc(rng, env, index);
    case "raw-http":
      return rawHttp(rng, env, index);
    case "slow-body":
      return slowBody(rng, env, index);
    case "stall":
      return stall(rng, env, index);
    case "dropped":
      return dropped(rng, env, index);
    case "ws-rpc":
      return wsRpc(rng, env, index);
    case "ws-raw":
      return wsRaw(rng, env, index);
    default:
      return wsStream(rng, index);
  }
}
