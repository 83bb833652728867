// How geth's debug_getRawHeader/Block/Receipts find their block: a hash (string or EIP-1898
// object) is looked up as given, canonical or not (requireCanonical is not consulted); a number
// or tag goes through the one resolver, and an unknown one gives an empty result, not an error.

import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
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
