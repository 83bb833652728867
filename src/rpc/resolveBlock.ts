// The one place where a block selector becomes a block or a state: every method that takes a
// block calls this, and a forked or following chain asks it first whose the block is (its own,
// or the upstream's past: `placeBlock`). Errors and not-found results follow geth: state reads
// fail on an unknown block, block reads answer null. `pending` is the pre-confirmed block when
// one extends the head, and `latest` otherwise: never null, never an error.
import type { AccountRecord } from "../chain/types.ts";
import type { PendingBlock } from "../pending/pendingBlock.ts";
import { PendingOverlay, type StateView } from "../pending/pendingState.ts";
import type { RpcBackend } from "../services/backend.ts";
import type { BlockSelector, BlockTag } from "../services/blockSelector.ts";
import { ServerError } from "../services/errors.ts";
import type { StateReader } from "../store/archive.ts";
import { equalBytes } from "../util/hex.ts";

export type ResolvedBlock = { readonly number: number; readonly hash: Uint8Array };

export type BlockTarget =
  | ({ readonly kind: "sealed" } & ResolvedBlock)
  | { readonly kind: "pending"; readonly block: PendingBlock };

/** State after a block (or after the pre-confirmed transactions), read without the trie. */
export type BlockState = StateView & {
  readonly number: number;
  readonly pending: boolean;
};

const LATEST: BlockSelector = { kind: "tag", tag: "latest" };

function head(backend: RpcBackend): number {
  const n = backend.chain.headNumber();
  if (n === undefined) throw new ServerError("archive is empty");
  return n;
}

/** The sealed block a tag names (the head's number for `latest`). */
export function tagNumber(
  backend: RpcBackend,
  tag: Exclude<BlockTag, "pending">,
  top: number,
): number {
  switch (tag) {
    case "earliest":
      return 0;
    case "latest":
      return top;
    case "safe":
    case "finalized":
      return backend.forkchoice(top)[tag];
  }
}

/** The pre-confirmed block if it builds on the current head (a stale one is already sealed). */
export function livePending(backend: RpcBackend, top = head(backend)): PendingBlock | undefined {
  const p = backend.pending();
  if (p === undefined || !p.preconfirmed) return undefined;
  return p.base.number === top + 1 ? p : undefined;
}

function sealed(backend: RpcBackend, number: number): BlockTarget | undefined {
  const hash = backend.chain.canonicalHash(number);
  return hash === undefined ? undefined : { kind: "sealed", number, hash };
}

/** Resolves a selector; undefined means "no such block" (unknown number or hash). */
export function resolveBlockTarget(
  backend: RpcBackend,
  selector: BlockSelector,
): BlockTarget | undefined {
  const chain = backend.chain;
  const top = head(backend);
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
      return { kind: "sealed", number: n, hash: selector.hash };
    }
    case "number":
      return selector.number > BigInt(top) ? undefined : sealed(backend, Number(selector.number));
    case "tag":
      switch (selector.tag) {
        case "pending": {
          const p = livePending(backend, top);
          return p === undefined ? sealed(backend, top) : { kind: "pending", block: p };
        }
        default:
          return sealed(backend, tagNumber(backend, selector.tag, top));
      }
  }
}

/**
 * Whose a block's data is: the chain's own (sealed or pending: resolved by the functions here),
 * or its upstream's past, named by number or by a hash the chain does not hold.
 */
export type BlockPlace =
  | { readonly past: false }
  | { readonly past: true; readonly number: bigint; readonly hash?: undefined }
  | { readonly past: true; readonly hash: Uint8Array; readonly number?: undefined };

const OWN: BlockPlace = { past: false };

/**
 * Where a read of `selector` (absent: latest) lies. Only a chain forked from a live one at F
 * (dev --fork-url, follow, their replicas) has a past: its blocks at or below F are the
 * upstream's (F's header is the chain's first, its body and receipts are not), and so is its
 * state below F (the state after F is the upstream's plus what the chain funded at F). A
 * hash the chain does not hold is the upstream's to answer; `pending` is always the chain's.
 */
export function placeBlock(
  backend: RpcBackend,
  selector: BlockSelector | undefined,
  reads: "state" | "block",
): BlockPlace {
  const fork = backend.fork;
  if (fork === undefined) return OWN;
  const limit = BigInt(fork.number) + (reads === "state" ? 0n : 1n);
  const sel = selector ?? LATEST;
  let n: bigint;
  switch (sel.kind) {
    case "hash": {
      const local = backend.chain.blockNumber(sel.hash);
      if (local === undefined) return { past: true, hash: sel.hash };
      n = BigInt(local);
      break;
    }
    case "number":
      n = sel.number;
      break;
    case "tag":
      if (sel.tag === "pending") return OWN;
      n = BigInt(tagNumber(backend, sel.tag, backend.chain.headNumber() ?? 0));
      break;
  }
  return n < limit ? { past: true, number: n } : OWN;
}

/** For methods that only take sealed blocks. */
export function resolveBlock(
  backend: RpcBackend,
  selector: BlockSelector,
): ResolvedBlock | undefined {
  const target = resolveBlockTarget(backend, selector);
  if (target?.kind === "pending")
    return sealed(backend, target.block.base.number - 1) as ResolvedBlock;
  return target;
}

/**
 * A class, not an object of closures: one is made per state read on the hot path. The store
 * takes its own head for its fast path (the node's view may trail what the archive holds: a
 * block committed but not yet shown with its pending swap).
 */
class SealedState implements BlockState {
  readonly pending = false;
  constructor(
    private readonly state: StateReader,
    readonly number: number,
  ) {}
  account(address: Uint8Array): AccountRecord | undefined {
    return this.state.account(address, this.number);
  }
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    return this.state.storage(address, slot, this.number);
  }
  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.state.code(codeHash);
  }
}

function sealedState(backend: RpcBackend, number: number): BlockState {
  return new SealedState(backend.state, number);
}

class PendingBlockState extends PendingOverlay implements BlockState {
  readonly pending = true;
  readonly number: number;
  constructor(state: StateReader, p: PendingBlock) {
    super(p, new SealedState(state, p.base.number - 1));
    this.number = p.base.number;
  }
}

function pendingState(backend: RpcBackend, p: PendingBlock): BlockState {
  return new PendingBlockState(backend.state, p);
}

/** For state reads: an unknown block is an error, as in geth. The block defaults to latest. */
export function resolveState(backend: RpcBackend, selector: BlockSelector | undefined): BlockState {
  const sel = selector ?? LATEST;
  // The common selectors need only the head: the canonical chain is contiguous from genesis, so
  // every number up to the head exists, and a state read needs no block hash.
  if (sel.kind === "number") {
    const top = head(backend);
    if (sel.number > BigInt(top)) throw new ServerError("header not found");
    return sealedState(backend, Number(sel.number));
  }
  if (sel.kind === "tag" && (sel.tag === "latest" || sel.tag === "pending")) {
    const top = head(backend);
    const p = sel.tag === "pending" ? livePending(backend, top) : undefined;
    return p === undefined ? sealedState(backend, top) : pendingState(backend, p);
  }
  const target = resolveBlockTarget(backend, sel);
  if (target === undefined) {
    throw new ServerError(sel.kind === "hash" ? "header for hash not found" : "header not found");
  }
  return target.kind === "pending"
    ? pendingState(backend, target.block)
    : sealedState(backend, target.number);
}
