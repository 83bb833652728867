import type { RpcBackend } from "../backend.ts";
import { ServerError } from "../errors.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseBlockNumberOnly } from "../params.ts";
import { DEFAULT_TRACE_OPTIONS, parseTraceConfig } from "./traceConfig.ts";
import { blockByNumber, runTrace } from "./traceTarget.ts";

/**
 * debug_traceBlockByNumber(number, config?) → `[{txHash, result}]`, every transaction of the
 * block traced in order on its parent's state. `pending` traces the pre-confirmed block.
 */
export function traceBlockByNumber(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly), optional(parseTraceConfig)],
    handler: ([selector, options]) => {
      const block = blockByNumber(backend, selector);
      if (block.number === 0) throw new ServerError("genesis is not traceable");
      return runTrace(backend, { kind: "block", ...block }, options ?? DEFAULT_TRACE_OPTIONS);
    },
  });
}
