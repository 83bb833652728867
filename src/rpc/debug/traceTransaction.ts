import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseHash32 } from "../params.ts";
import { DEFAULT_TRACE_OPTIONS, parseTraceConfig } from "./traceConfig.ts";
import { runTrace } from "./traceTarget.ts";

/**
 * debug_traceTransaction(hash, config?) → the transaction's trace, replayed on the state its
 * block left before it. As geth: only sealed transactions (a pre-confirmed one is not found).
 */
export function traceTransaction(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseHash32), optional(parseTraceConfig)],
    reads: "transaction",
    handler: ([hash, options]) => {
      const location = backend.chain.transactionLocation(hash);
      if (location === undefined) throw new ServerError("transaction not found");
      if (location.number === 0) throw new ServerError("genesis is not traceable");
      return runTrace(
        backend,
        { kind: "transaction", number: location.number, index: location.index },
        options ?? DEFAULT_TRACE_OPTIONS,
      );
    },
  });
}
