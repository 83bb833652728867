import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { goDecimalBytes, resolveRawTarget } from "./rawTarget.ts";

/**
 * debug_getRawBlock(block) → the block's RLP (`[header, txs, uncles, withdrawals?]`). As geth: a
 * number past the head → "0x", an unknown hash → -32000 `block #[…] not found`. pending → the
 * pre-confirmed block (zero state root, no uncles, no withdrawals).
 */
export function getRawBlock(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockSelector)],
    reads: "block",
    handler: ([selector]) => {
      const target = resolveRawTarget(backend, selector);
      if (target === undefined) return "0x";
      const decoder = backend.decoder;
      if (target.kind === "pending") {
        const header = decoder.pendingHeaderRlp(target.block);
        return bytesToHex(decoder.blockRlp(header, decoder.pendingBodyRlp(target.block)));
      }
      if (target.kind === "sealed") {
        const header = backend.chain.headerRlp(target.number, target.hash);
        const body = backend.chain.bodyRlp(target.number, target.hash);
        if (header !== undefined && body !== undefined)
          return bytesToHex(decoder.blockRlp(header, body));
      }
      throw new ServerError(`block #${goDecimalBytes(target.hash)} not found`);
    },
  });
}
