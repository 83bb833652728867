import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { parseCallArgs } from "../callArgs.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { DEFAULT_TRACE_OPTIONS, parseTraceCallConfig } from "./traceConfig.ts";
import { blockByNumber, blockNumberByHash, runTrace } from "./traceTarget.ts";

/**
 * debug_traceCall(args, block, config?) → the call's trace on the state after `block` (or,
 * with `txIndex`, before that transaction of the block), as geth: the gas defaults to and is
 * capped at the RPC gas cap, and `pending` is refused.
 */
export function traceCall(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseCallArgs), required(parseBlockSelector), optional(parseTraceCallConfig)],
    reads: "state",
    handler: ([args, selector, config]) => {
      let number: number;
      if (selector.kind === "hash") number = blockNumberByHash(backend, selector.hash);
      else if (selector.kind === "tag" && selector.tag === "pending")
        throw new ServerError("tracing on top of pending is not supported");
      else {
        const target = blockByNumber(backend, selector);
        // Not pending here: only the `pending` tag resolves to the pre-confirmed block.
        number = target.kind === "sealed" ? target.number : target.block.base.number - 1;
      }
      if (config?.overrides) throw new ServerError("state and block overrides are not supported");
      return runTrace(
        backend,
        { kind: "call", request: args, number, txIndex: config?.txIndex },
        config?.trace ?? DEFAULT_TRACE_OPTIONS,
      );
    },
  });
}
