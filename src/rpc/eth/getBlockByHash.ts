import type { RpcBackend } from "../../services/backend.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockHash, parseBool } from "../params.ts";
import { resolveBlockTarget } from "../resolveBlock.ts";
import { blockResult } from "./blockResult.ts";

/** eth_getBlockByHash(hash, fullTransactions) → block or null. */
export function getBlockByHash(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockHash), required(parseBool)],
    reads: "block",
    handler: ([hash, full]) =>
      blockResult(
        backend,
        resolveBlockTarget(backend, { kind: "hash", hash, requireCanonical: false }),
        full,
      ),
  });
}
