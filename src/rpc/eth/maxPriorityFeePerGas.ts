import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod } from "../method.ts";
import { SUGGESTED_TIP } from "./fees.ts";

/** eth_maxPriorityFeePerGas → suggested tip. */
export function maxPriorityFeePerGas(_backend: RpcBackend) {
  return defineMethod({ params: [], handler: () => quantity(SUGGESTED_TIP) });
}
