import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
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
    reads: "block",
    handler: ([selector, options]) => {
      const target = blockByNumber(backend, selector);
      const config = options ?? DEFAULT_TRACE_OPTIONS;
      if (target.kind === "pending") {
        const { base, transactions } = target.block;
        return runTrace(backend, { kind: "pendingBlock", base, transactions }, config);
      }
      if (target.number === 0) throw new ServerError("genesis is not traceable");
      return runTrace(backend, { kind: "block", number: target.number }, config);
    },
  });
}
