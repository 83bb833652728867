// How geth's debug_getRawHeader/Block/Receipts find their block: a hash (string or EIP-1898
// object) is looked up as given, canonical or not (requireCanonical is not consulted); a number
// or tag goes through the one resolver, and an unknown one gives an empty result, not an error.

import type { PendingBlock } from "../../pending/pendingBlock.ts";
import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import { ServerError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { defineMethod, required } from "../method.ts";
import { parseBlockSelector } from "../params.ts";
import { type BlockTarget, resolveBlockTarget } from "../resolveBlock.ts";

export type RawTarget =
  | BlockTarget
  /** A hash no stored block has. */
  | { readonly kind: "unknownHash"; readonly hash: Uint8Array }
  /** A number past the head. */
  | undefined;

export function resolveRawTarget(backend: RpcBackend, selector: BlockSelector): RawTarget {
  if (selector.kind === "hash") {
    const number = backend.chain.blockNumber(selector.hash);
    return number === undefined
      ? { kind: "unknownHash", hash: selector.hash }
      : { kind: "sealed", number, hash: selector.hash };
  }
  return resolveBlockTarget(backend, selector);
}

/** A hash as Go's `%d` verb prints common.Hash in geth's "header #%d not found": decimal bytes. */
export function goDecimalBytes(hash: Uint8Array): string {
  return `[${hash.join(" ")}]`;
}

/**
 * debug_getRawHeader and debug_getRawBlock: the RLP `encode` gives for the block, as geth: "0x" for
 * a number past the head, -32000 `<what> #[…] not found` for a hash no stored block has.
 */
export function rawBlockMethod(
  backend: RpcBackend,
  what: "header" | "block",
  encode: {
    readonly pending: (block: PendingBlock) => Uint8Array;
    readonly sealed: (number: number, hash: Uint8Array) => Uint8Array | undefined;
  },
) {
  return defineMethod({
    params: [required(parseBlockSelector)],
    reads: "block",
    handler: ([selector]) => {
      const target = resolveRawTarget(backend, selector);
      if (target === undefined) return "0x";
      if (target.kind === "pending") return bytesToHex(encode.pending(target.block));
      const rlp = target.kind === "sealed" ? encode.sealed(target.number, target.hash) : undefined;
      if (rlp === undefined)
        throw new ServerError(`${what} #${goDecimalBytes(target.hash)} not found`);
      return bytesToHex(rlp);
    },
  });
}
