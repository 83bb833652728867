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
import { checkArchive, recordForkPoint, resolveForkPoint } from "./forkPoint.ts";
import { createForkState, type ForkState } from "./forkState.ts";
import { isObject, parseData, parseQuantity, type RpcBlock } from "./json.ts";

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
};

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

function isOpBlock(block: RpcBlock): boolean {
  const first = block.transactions[0];
  return isObject(first) && typeof first.type === "string" && BigInt(first.type) === 0x7en;
}

export async function prepareFork(
  client: UpstreamClient,
  env: KvEnv,
  req: ForkRequest,
  deps: { readonly logger?: Logger; readonly callOptions?: CallOptions } = {},
): Promise<ForkSetup> {
  const resolved = await resolveForkPoint(
    client,
    env,
    {
      ...(req.chainId === undefined ? {} : { chainId: req.chainId }),
      ...(req.blockNumber === undefined ? {} : { blockNumber: req.blockNumber }),
    },
    deps.callOptions,
  );
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
  const op = name !== undefined || isOpBlock(block);
  const extraData = parseData(host, "a block's extraData", block.extraData ?? "0x");
  const era = headerEra(block);
  const genesis = forkGenesis({
    chainId: fork.chainId,
    era,
    hardfork: req.hardfork,
    forkNumber: fork.number,
    forkTimestamp: parseQuantity(host, "a block's timestamp", block.timestamp),
    gasLimit: parseQuantity(host, "a block's gasLimit", block.gasLimit),
    baseFeePerGas: parseQuantity(host, "a block's baseFeePerGas", block.baseFeePerGas),
    ...(op ? { op: opEip1559Params(fork.chainId, extraData) } : {}),
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
