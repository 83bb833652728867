// Everything a new chain forked from a live one at block F needs before its first block, asked of
// the upstream once (and kept in the datadir): F (resolveForkPoint), proof the upstream has state
// at F, F's header as the chain's base, the chain config (the upstream's chain id, hardfork
// schedule and, on an OP-stack chain, its EIP-1559 parameters and L1Block values), the dev
// accounts to fund and the system contracts to install where the upstream has none.
import { DEV_FORKS, type DevFork, systemContracts } from "../chain/devGenesis.ts";
import { forkGenesis } from "../chain/forkGenesis.ts";
import { headerEra, headerRlpFromJson } from "../chain/headerJson.ts";
import { L1_BLOCK } from "../chain/op/config.ts";
import { knownOpChain, opEip1559Params } from "../chain/op/knownChains.ts";
import type { DevL1Config } from "../chain/op/l1Info.ts";
import type { Logger } from "../log/logger.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { bytesToBigInt, hexToBytes } from "../util/hex.ts";
import type { CallOptions } from "./calls.ts";
import type { UpstreamClient } from "./client.ts";
import type { ForkPoint } from "./forkCache.ts";
import {
  checkArchive,
  checkKnownFork,
  ForkPointError,
  type ResolvedFork,
  recordForkPoint,
  resolveForkPoint,
} from "./forkPoint.ts";
import { createForkState, type ForkState } from "./forkState.ts";
import { hex, isObject, parseData, parseQuantity, type RpcBlock } from "./json.ts";

export type ForkRequest = {
  /** F's number; negative: that many below the upstream's head; unset: head less a few. */
  readonly blockNumber?: bigint;
  /** Skips eth_chainId (`--fork-chain-id`): a fork seen before starts offline. */
  readonly chainId?: bigint;
  /** The EVM rules of the chain's own blocks (at least what F already runs). */
  readonly hardfork: DevFork;
  /** Accounts funded with `balanceWei` each on top of the upstream's state. */
  readonly accounts: readonly string[];
  readonly balanceWei: bigint;
  /**
   * The datadir holds a chain forked at this F (a restart): an upstream whose block at F's number
   * is another is refused. Otherwise such a record of F is another chain's, and F is asked anew.
   */
  readonly continuing?: boolean;
};

/** How long a start waits to confirm a fork block the datadir knows (then it goes on offline). */
const KNOWN_FORK_CHECK_MS = 5_000;

/** A write of the fork's base state: the upstream's account with this balance and code. */
export type BaseWrite = {
  readonly address: string;
  readonly balance?: bigint;
  /** Runtime code (hex) to install: a system contract the upstream lacks. */
  readonly code?: string;
};

export type ForkSetup = {
  readonly point: ForkPoint;
  /** The chain config (a geth genesis without allocations). */
  readonly genesis: Record<string, unknown>;
  /** F's header RLP, hashing to F's hash. */
  readonly headerRlp: Uint8Array;
  readonly baseWrites: readonly BaseWrite[];
  /** An OP-stack chain's L1 fee values, as its L1Block held them at F. */
  readonly l1: DevL1Config | undefined;
  /** The chain's name, when flashnode knows it. */
  readonly name: string | undefined;
  /** F's gas limit (the fork's blocks keep it unless told otherwise). */
  readonly gasLimit: bigint;
  /** Whether F came from the datadir (seen before). */
  readonly known: boolean;
};

/** EIP → the hardfork that activates it, of the system contracts the EVM library calls. */
const SYSTEM_CONTRACT_FORK: ReadonlyMap<string, DevFork> = new Map([
  ["000f3df6d732807ef1319fb7b8bb8522d0beac02", "cancun"],
  ["0000f90827f1c53a10cb7a02335b175320002935", "prague"],
  ["00000961ef480eb55e80d19ad83579a64c007002", "prague"],
  ["0000bbddc7ce488642fb579f8b00f3a590007251", "prague"],
]);

const word = (n: number) => {
  const out = new Uint8Array(32);
  out[31] = n;
  return out;
};

/** The L1 fee values an OP-stack chain's L1Block predeploy holds at F (Ecotone's layout). */
async function l1Values(state: ForkState): Promise<DevL1Config> {
  const [baseFee, packed, blobBaseFee] = await Promise.all([
    state.storage(L1_BLOCK, word(1)),
    state.storage(L1_BLOCK, word(3)),
    state.storage(L1_BLOCK, word(7)),
  ]);
  // Slot 3: sequenceNumber u64 ‖ blobBaseFeeScalar u32 ‖ baseFeeScalar u32, low bytes first.
  const scalars = bytesToBigInt(packed);
  return {
    baseFee: bytesToBigInt(baseFee),
    blobBaseFee: bytesToBigInt(blobBaseFee),
    blobBaseFeeScalar: Number((scalars >> 64n) & 0xffffffffn),
    baseFeeScalar: Number((scalars >> 96n) & 0xffffffffn),
  };
}

/** F's base fee and its parent's fee inputs: what tells an unknown chain's EIP-1559 parameters. */
async function baseFeeSeen(
  client: UpstreamClient,
  number: bigint,
  block: RpcBlock,
  opts: CallOptions | undefined,
) {
  if (number === 0n || block.baseFeePerGas === undefined) return undefined;
  const parent = await client.blockByNumber(number - 1n, false, opts).catch(() => null);
  if (parent === null || parent.baseFeePerGas === undefined) return undefined;
  const q = (v: unknown) => parseQuantity(client.host, "a block's fee field", v);
  return {
    parent: {
      baseFee: q(parent.baseFeePerGas),
      gasUsed: q(parent.gasUsed),
      gasLimit: q(parent.gasLimit),
    },
    baseFee: q(block.baseFeePerGas),
  };
}

function isOpBlock(block: RpcBlock): boolean {
  const first = block.transactions[0];
  return isObject(first) && typeof first.type === "string" && BigInt(first.type) === 0x7en;
}

/**
 * A fork block the datadir knows, checked with the upstream: the same block goes on, another is
 * refused (a restart) or asked anew, an upstream that does not answer leaves the datadir's.
 */
async function confirmKnown(
  client: UpstreamClient,
  env: KvEnv,
  resolved: ResolvedFork,
  req: ForkRequest,
  deps: { readonly logger?: Logger; readonly callOptions?: CallOptions },
): Promise<ResolvedFork> {
  const { fork } = resolved;
  const check = await checkKnownFork(client, fork, { deadlineMs: KNOWN_FORK_CHECK_MS });
  if (check.kind === "same") return resolved;
  if (check.kind === "unanswered") {
    deps.logger?.warn(
      { upstream: client.host, reason: check.reason },
      "the upstream does not answer: starting from what the datadir holds of the fork block",
    );
    return resolved;
  }
  if (req.continuing === true)
    throw new ForkPointError(
      `the upstream at ${client.host} is another chain than the one this datadir forked: its block ${fork.number} is ${check.hash ?? "missing"}, the fork's is ${hex(fork.hash)} (both chain id ${fork.chainId}); point the URL at the chain this datadir forked, or start over (--fresh, or another --datadir)`,
    );
  return resolveForkPoint(
    client,
    env,
    {
      ...(req.chainId === undefined ? {} : { chainId: req.chainId }),
      ...(req.blockNumber === undefined ? {} : { blockNumber: req.blockNumber }),
      ignoreKnown: true,
    },
    deps.callOptions,
  );
}

export async function prepareFork(
  client: UpstreamClient,
  env: KvEnv,
  req: ForkRequest,
  deps: { readonly logger?: Logger; readonly callOptions?: CallOptions } = {},
): Promise<ForkSetup> {
  const pointRequest = {
    ...(req.chainId === undefined ? {} : { chainId: req.chainId }),
    ...(req.blockNumber === undefined ? {} : { blockNumber: req.blockNumber }),
  };
  let resolved = await resolveForkPoint(client, env, pointRequest, deps.callOptions);
  if (resolved.known) resolved = await confirmKnown(client, env, resolved, req, deps);
  const { fork, block } = resolved;
  if (!resolved.known) {
    await checkArchive(client, fork, deps.callOptions);
    recordForkPoint(env, fork);
  }
  const host = client.host;
  const state = createForkState({
    client,
    env,
    fork,
    ...(deps.logger === undefined ? {} : { logger: deps.logger }),
  });
  const name = knownOpChain(fork.chainId);
  // An OP-stack chain: known by id, or its blocks open with a deposit, or (a block without one,
  // its genesis say) it has the L1Block predeploy.
  const op = name !== undefined || isOpBlock(block) || (await state.code(L1_BLOCK)).length > 0;
  const extraData = parseData(host, "a block's extraData", block.extraData ?? "0x");
  const seen = op ? await baseFeeSeen(client, fork.number, block, deps.callOptions) : undefined;
  const era = headerEra(block);
  const genesis = forkGenesis({
    chainId: fork.chainId,
    era,
    hardfork: req.hardfork,
    forkNumber: fork.number,
    forkTimestamp: parseQuantity(host, "a block's timestamp", block.timestamp),
    gasLimit: parseQuantity(host, "a block's gasLimit", block.gasLimit),
    baseFeePerGas: parseQuantity(host, "a block's baseFeePerGas", block.baseFeePerGas),
    ...(op ? { op: opEip1559Params(fork.chainId, extraData, seen) } : {}),
  });
  const baseWrites: BaseWrite[] = req.accounts.map((address) => ({
    address,
    balance: req.balanceWei,
  }));
  // The EVM library calls these at every block of the forks that have them; a chain that never
  // deployed them (an OP-stack chain has no EIP-7002 or EIP-7251) gets the canonical code.
  const wanted = DEV_FORKS.indexOf(req.hardfork);
  const contracts = systemContracts();
  for (const [address, fork] of SYSTEM_CONTRACT_FORK) {
    if (DEV_FORKS.indexOf(fork) > wanted) continue;
    const code = await state.code(hexToBytes(`0x${address}`));
    if (code.length === 0)
      baseWrites.push({ address: `0x${address}`, code: contracts.get(address)! });
  }
  return {
    point: fork,
    genesis,
    headerRlp: headerRlpFromJson(block),
    baseWrites,
    l1: op ? await l1Values(state) : undefined,
    name,
    gasLimit: parseQuantity(host, "a block's gasLimit", block.gasLimit),
    known: resolved.known,
  };
}
