import { quantity } from "../../util/hex.ts";
import type { RpcBackend } from "../backend.ts";
import { parseCallArgs } from "../callArgs.ts";
import { withCallErrors } from "../callFailure.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { callService, callTarget } from "./callTarget.ts";

/** eth_estimateGas(args, block = latest) → the least gas limit that succeeds (within 1.5%). */
export function estimateGas(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseCallArgs), optional(parseBlockSelector)],
    handler: async ([args, selector]) => {
      const target = callTarget(backend, selector);
      return quantity(await withCallErrors(() => callService(backend).estimateGas(args, target)));
    },
  });
}
