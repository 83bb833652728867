import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseBlockHash } from "../params.ts";
import { DEFAULT_TRACE_OPTIONS, parseTraceConfig } from "./traceConfig.ts";
import { blockNumberByHash, runTrace } from "./traceTarget.ts";

/** debug_traceBlockByHash(hash, config?) → `[{txHash, result}]`, as debug_traceBlockByNumber. */
export function traceBlockByHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockHash), optional(parseTraceConfig)],
    reads: "block",
    handler: ([hash, options]) => {
      const number = blockNumberByHash(backend, hash);
      if (number === 0) throw new ServerError("genesis is not traceable");
      return runTrace(backend, { kind: "block", number }, options ?? DEFAULT_TRACE_OPTIONS);
    },
  });
}
