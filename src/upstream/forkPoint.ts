// Choosing the fork block F at start: the upstream's chain id, F's number (given, negative = head
// minus it, or the head less a small reorg-safe depth) and F's hash; and the check that the
// upstream has state at F at all (foundry #7625: "missing trie node" left unexplained). A fork
// point seen before is found in the datadir, so a restart, or an offline start with the chain id
// given, asks the upstream nothing but its block at F's number (checkKnownFork: another chain with
// the same chain id is refused; an upstream that does not answer lets the start go on offline).
import type { KvEnv } from "../store/lmdb.ts";
import { FlashnodeError } from "../util/errors.ts";
import type { CallOptions } from "./calls.ts";
import { notArchiveReason } from "./classify.ts";
import type { UpstreamClient } from "./client.ts";
import {
  UpstreamCallError,
  UpstreamNotArchiveError,
  UpstreamRateLimitedError,
  UpstreamUnavailableError,
} from "./errors.ts";
import { ForkCache, type ForkPoint } from "./forkCache.ts";
import { notArchive } from "./forkState.ts";
import { atBlockHash, blockId, hex, isObject, parseBlock, type RpcBlock } from "./json.ts";

/**
 * Blocks behind the upstream's head a fork starts at when no block is given: past the reorgs
 * that happen in practice (1–2 blocks on Ethereum, none on an OP-stack chain's unsafe head
 * normally), yet well inside a full node's 128-block state window, so a non-archive upstream
 * still serves F for a while (Hardhat takes 32–128, which a full node's window barely covers).
 */
export const DEFAULT_FORK_DEPTH = 5n;

/**
 * The depth a fork starts at when no block is given: none for an upstream on this machine (a
 * dev chain: anvil, another flashnode, whose head does not reorg), DEFAULT_FORK_DEPTH otherwise.
 */
export function defaultForkDepth(host: string): bigint {
  const name = host.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
  return name === "localhost" || name === "::1" || name.startsWith("127.")
    ? 0n
    : DEFAULT_FORK_DEPTH;
}

const clampedAtZero = (n: bigint) => (n < 0n ? 0n : n);

/** The zero address: every chain answers its balance when it has state at the block. */
const PROBE_ADDRESS = `0x${"00".repeat(20)}`;

/** F cannot be chosen: past the head, or no such block. */
export class ForkPointError extends FlashnodeError {
  readonly code = "FORK_POINT";
}

export type ForkPointRequest = {
  /** Skips eth_chainId (`--fork-chain-id`): with `blockNumber`, a known F starts offline. */
  readonly chainId?: bigint;
  /** F's number; negative: that many blocks below the head; unset: head − `depth`. */
  readonly blockNumber?: bigint;
  readonly depth?: bigint;
  /** The datadir's record of F for this number is another chain's: asked of the upstream anew. */
  readonly ignoreKnown?: boolean;
};

export type ResolvedFork = {
  readonly fork: ForkPoint;
  /** F as eth_getBlockByHash(F, true) answered. */
  readonly block: RpcBlock;
  /** Whether F came from the datadir (seen before: no archive check needed). */
  readonly known: boolean;
};

export async function resolveForkPoint(
  client: UpstreamClient,
  env: KvEnv,
  req: ForkPointRequest = {},
  opts?: CallOptions,
): Promise<ResolvedFork> {
  const chainId = req.chainId ?? (await client.chainId(opts));
  const given = req.blockNumber;
  if (given !== undefined && given >= 0n && req.ignoreKnown !== true) {
    const known = knownFork(env, chainId, given);
    if (known !== undefined) return known;
  }
  const head = await client.blockByNumber("latest", false, opts);
  if (head === null) throw new ForkPointError(`the upstream at ${client.host} has no latest block`);
  const headNumber = blockId(client.host, head).number;
  const number =
    given === undefined
      ? clampedAtZero(headNumber - (req.depth ?? defaultForkDepth(client.host)))
      : given < 0n
        ? headNumber + given
        : given;
  if (number < 0n)
    throw new ForkPointError(
      `cannot fork at block ${number}: the upstream at ${client.host} is at block ${headNumber}`,
    );
  if (number > headNumber)
    throw new ForkPointError(
      `cannot fork at block ${number}: the upstream at ${client.host} is only at block ${headNumber}`,
    );
  const seen = req.ignoreKnown === true ? undefined : knownFork(env, chainId, number);
  if (seen !== undefined) return seen;
  const block = await client.blockByNumber(number, true, opts);
  if (block === null)
    throw new UpstreamNotArchiveError(
      client.host,
      `the upstream at ${client.host} has no block ${number} though its head is ${headNumber}: use an archive node, or a recent fork block`,
    );
  const id = blockId(client.host, block);
  const fork: ForkPoint = { chainId, number: id.number, hash: id.hash };
  const cache = new ForkCache(env, fork);
  cache.putBlock(fork.hash, block);
  cache.putCanonical(fork.number, fork.hash);
  cache.flush();
  return { fork, block, known: false };
}

/** Marks F as used (after checkArchive passed), for restarts and offline starts. */
export function recordForkPoint(env: KvEnv, fork: ForkPoint): void {
  new ForkCache(env, fork).recordForkPoint();
}

function knownFork(env: KvEnv, chainId: bigint, number: bigint): ResolvedFork | undefined {
  const hash = ForkCache.forkPoint(env, chainId, number);
  if (hash === undefined) return undefined;
  const fork: ForkPoint = { chainId, number, hash };
  const block = new ForkCache(env, fork).block(hash);
  if (!isObject(block)) return undefined;
  return { fork, block: parseBlock("datadir", "a cached block", block) as RpcBlock, known: true };
}

/**
 * Asks the upstream for state at F once (the zero address's balance, pinned by hash): a node
 * without it answers "missing trie node", "header not found" and the like, which becomes
 * UpstreamNotArchiveError naming the block and the upstream.
 */
export async function checkArchive(
  client: UpstreamClient,
  fork: ForkPoint,
  opts?: CallOptions,
): Promise<void> {
  try {
    await client.call("eth_getBalance", [PROBE_ADDRESS, atBlockHash(fork.hash)], opts);
  } catch (e) {
    if (e instanceof UpstreamCallError) {
      const reason = notArchiveReason({ code: e.rpcCode, message: e.rpcMessage });
      if (reason !== undefined) throw notArchive(client.host, fork, reason, e);
    }
    throw e;
  }
}

/** What the upstream says of a fork block F the datadir knows. */
export type KnownForkCheck =
  | { readonly kind: "same" }
  /** Its block at F's number is another (or it has none): another chain with the same id. */
  | { readonly kind: "other"; readonly hash: string | undefined }
  /** It did not answer (a start goes on from the datadir, as it does offline). */
  | { readonly kind: "unanswered"; readonly reason: string };

/** Asks the upstream for its block at F's number: is it F? */
export async function checkKnownFork(
  client: UpstreamClient,
  fork: ForkPoint,
  opts?: CallOptions,
): Promise<KnownForkCheck> {
  let block: RpcBlock | null;
  try {
    block = await client.blockByNumber(fork.number, false, opts);
  } catch (e) {
    if (e instanceof UpstreamUnavailableError || e instanceof UpstreamRateLimitedError)
      return { kind: "unanswered", reason: e.message };
    throw e;
  }
  if (block === null) return { kind: "other", hash: undefined };
  const { hash } = blockId(client.host, block);
  return hex(hash) === hex(fork.hash) ? { kind: "same" } : { kind: "other", hash: hex(hash) };
}
