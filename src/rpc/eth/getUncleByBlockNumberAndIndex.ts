import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockNumberOnly, parseUint } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { uncleAtIndex } from "./blockBody.ts";

/**
 * eth_getUncleByBlockNumberAndIndex(number|tag, index) → the uncle header as a block without
 * transactions (geth's shape), null when the block or the uncle does not exist; pending → null.
 */
export function getUncleByBlockNumberAndIndex(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockNumberOnly), required(parseUint)],
    reads: "block",
    handler: ([selector, index]) =>
      uncleAtIndex(backend, resolveBlockTarget(backend, selector), index),
  });
}
