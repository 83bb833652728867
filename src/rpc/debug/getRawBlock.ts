import type { RpcBackend } from "../../services/backend.ts";
import { rawBlockMethod } from "./rawTarget.ts";

/**
 * debug_getRawBlock(block) → the block's RLP (`[header, txs, uncles, withdrawals?]`). As geth: a
 * number past the head → "0x", an unknown hash → -32000 `block #[…] not found`. pending → the
 * pre-confirmed block (zero state root, no uncles, no withdrawals).
 */
export function getRawBlock(backend: RpcBackend) {
  return rawBlockMethod(backend, "block", {
    pending: (block) => {
      const decoder = backend.decoder;
      return decoder.blockRlp(decoder.pendingHeaderRlp(block), decoder.pendingBodyRlp(block));
    },
    sealed: (number, hash) => {
      const header = backend.chain.headerRlp(number, hash);
      const body = backend.chain.bodyRlp(number, hash);
      if (header === undefined || body === undefined) return undefined;
      return backend.decoder.blockRlp(header, body);
    },
  });
}
