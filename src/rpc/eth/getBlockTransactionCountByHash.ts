import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockHash } from "../params.ts";
import { blockCount } from "./blockBody.ts";

/** eth_getBlockTransactionCountByHash(hash) → the block's transaction count, null for an unknown hash. */
export function getBlockTransactionCountByHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockHash)],
    reads: "block",
    handler: ([hash]) =>
      blockCount(backend, { kind: "hash", hash, requireCanonical: false }, "transactions"),
  });
}
