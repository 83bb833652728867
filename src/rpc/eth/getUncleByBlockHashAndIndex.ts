import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockHash, parseUint } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { uncleAtIndex } from "./blockBody.ts";

/**
 * eth_getUncleByBlockHashAndIndex(hash, index) → the uncle header as a block without
 * transactions (geth's shape), null when the block or the uncle does not exist.
 */
export function getUncleByBlockHashAndIndex(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockHash), required(parseUint)],
    reads: "block",
    handler: ([hash, index]) =>
      uncleAtIndex(
        backend,
        resolveBlockTarget(backend, { kind: "hash", hash, requireCanonical: false }),
        index,
      ),
  });
}
