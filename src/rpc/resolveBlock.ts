// The one place where a block selector becomes a block: every method that takes a block calls
// this. Errors and not-found results follow geth: state reads fail on an unknown block, block
// reads answer null.
import type { ChainReader } from "../store/chainStore.ts";
import { equalBytes } from "../util/hex.ts";
import { ServerError } from "./errors.ts";
import type { BlockSelector } from "./params.ts";

export type ResolvedBlock = { readonly number: number; readonly hash: Uint8Array };

/** Resolves a selector; undefined means "no such block" (unknown number or hash). */
export function resolveBlock(
  chain: ChainReader,
  selector: BlockSelector,
): ResolvedBlock | undefined {
  const head = chain.headNumber();
  if (head === undefined) throw new ServerError("archive is empty");
  let number: number;
  switch (selector.kind) {
    case "hash": {
      const n = chain.blockNumber(selector.hash);
      if (n === undefined) return undefined;
      const canonical = chain.canonicalHash(n);
      if (
        selector.requireCanonical &&
        (canonical === undefined || !equalBytes(canonical, selector.hash))
      ) {
        throw new ServerError("hash is not currently canonical");
      }
      return { number: n, hash: selector.hash };
    }
    case "number":
      if (selector.number > BigInt(head)) return undefined;
      number = Number(selector.number);
      break;
    case "tag":
      switch (selector.tag) {
        case "earliest":
          number = 0;
          break;
        // No sequencer: there is no pre-confirmed block, so pending is latest.
        case "latest":
        case "pending":
          number = head;
          break;
        case "safe":
        case "finalized": {
          const n = chain.forkchoice()[selector.tag];
          if (n === undefined) throw new ServerError(`${selector.tag} block not found`);
          number = n;
          break;
        }
      }
  }
  const hash = chain.canonicalHash(number);
  return hash === undefined ? undefined : { number, hash };
}

/** For state reads: an unknown block is an error, as in geth. */
export function resolveStateBlock(
  chain: ChainReader,
  selector: BlockSelector | undefined,
): ResolvedBlock {
  const sel: BlockSelector = selector ?? { kind: "tag", tag: "latest" };
  const block = resolveBlock(chain, sel);
  if (block === undefined) {
    throw new ServerError(sel.kind === "hash" ? "header for hash not found" : "header not found");
  }
  return block;
}
