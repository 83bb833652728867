import type { RpcBackend } from "../../services/backend.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockHash } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { blockCounts } from "./blockBody.ts";

/** eth_getUncleCountByBlockHash(hash) → the block's uncle count, null for an unknown hash. */
export function getUncleCountByBlockHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockHash)],
    reads: "block",
    handler: ([hash]) => {
      const target = resolveBlockTarget(backend, { kind: "hash", hash, requireCanonical: false });
      const counts = blockCounts(backend, target);
      return counts === undefined ? null : quantity(counts.uncles);
    },
  });
}
