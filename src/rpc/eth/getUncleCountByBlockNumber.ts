import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockNumberOnly } from "../params.ts";
import { blockCount } from "./blockBody.ts";

/**
 * eth_getUncleCountByBlockNumber(number|tag) → the block's uncle count (0x0 after the merge),
 * null for an unknown block; pending → 0x0 (the pre-confirmed block has none).
 */
export function getUncleCountByBlockNumber(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly)],
    reads: "block",
    handler: ([selector]) => blockCount(backend, selector, "uncles"),
  });
}
