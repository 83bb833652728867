import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import { quantity } from "../../util/hex.ts";
import { parseCallArgs } from "../callArgs.ts";
import { withCallErrors } from "../callFailure.ts";
import { defineMethod, optional, required } from "../method.ts";
import { PENDING, parseBlockSelector } from "../params.ts";
import { callService, callTarget } from "./callTarget.ts";

/**
 * Without a block, a transaction sent now runs on top of the pre-confirmed block, so that is
 * where its gas is estimated (geth's own default before 1.13; eth_call keeps `latest`). At
 * `latest`, a call to a contract whose deployment is only pre-confirmed finds no code, and the
 * estimate is too low for the transaction that then runs where the code is.
 */
const ESTIMATE_DEFAULT: BlockSelector = PENDING;

/** eth_estimateGas(args, block = pending) → the least gas limit that succeeds (within 1.5%). */
export function estimateGas(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseCallArgs), optional(parseBlockSelector, ESTIMATE_DEFAULT)],
    reads: "state",
    handler: async ([args, selector]) => {
      const target = callTarget(backend, selector);
      return quantity(await withCallErrors(() => callService(backend).estimateGas(args, target)));
    },
  });
}
