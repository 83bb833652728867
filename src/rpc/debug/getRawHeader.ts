import type { RpcBackend } from "../../services/backend.ts";
import { rawBlockMethod } from "./rawTarget.ts";

/**
 * debug_getRawHeader(block) → the header's RLP. As geth: a number past the head → "0x", an
 * unknown hash → -32000 `header #[…] not found`. pending → the pre-confirmed header (zero state
 * root, as eth_getBlockByNumber shows it).
 */
export function getRawHeader(backend: RpcBackend) {
  return rawBlockMethod(backend, "header", {
    pending: (block) => backend.decoder.pendingHeaderRlp(block),
    sealed: (number, hash) => backend.chain.headerRlp(number, hash),
  });
}
