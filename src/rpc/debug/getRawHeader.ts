import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { goDecimalBytes, resolveRawTarget } from "./rawTarget.ts";

/**
 * debug_getRawHeader(block) → the header's RLP. As geth: a number past the head → "0x", an
 * unknown hash → -32000 `header #[…] not found`. pending → the pre-confirmed header (zero state
 * root, as eth_getBlockByNumber shows it).
 */
export function getRawHeader(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockSelector)],
    reads: "block",
    handler: ([selector]) => {
      const target = resolveRawTarget(backend, selector);
      if (target === undefined) return "0x";
      if (target.kind === "pending")
        return bytesToHex(backend.decoder.pendingHeaderRlp(target.block));
      const rlp =
        target.kind === "sealed" ? backend.chain.headerRlp(target.number, target.hash) : undefined;
      if (rlp === undefined)
        throw new ServerError(`header #${goDecimalBytes(target.hash)} not found`);
      return bytesToHex(rlp);
    },
  });
}
