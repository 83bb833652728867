import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { parseCallArgs } from "../callArgs.ts";
import { callResultError, withCallErrors } from "../callFailure.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { callService, callTarget } from "./callTarget.ts";

function parseOverrides(raw: unknown): unknown {
  return raw;
}

/** eth_call(args, block = latest) → return data; reverts are code 3 with the revert data. */
export function call(backend: RpcBackend) {
  return defineMethod({
    params: [
      required(parseCallArgs),
      optional(parseBlockSelector),
      optional(parseOverrides),
      optional(parseOverrides),
    ],
    reads: "state",
    handler: async ([args, selector, stateOverrides, blockOverrides]) => {
      if (stateOverrides !== undefined || blockOverrides !== undefined) {
        throw new ServerError("state and block overrides are not supported");
      }
      const target = callTarget(backend, selector);
      const result = await withCallErrors(() => callService(backend).call(args, target));
      if (!result.ok) throw callResultError(result);
      return bytesToHex(result.returnData);
    },
  });
}
