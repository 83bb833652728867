// Uniswap V2 and V3 deployed from their npm artifacts by the test mnemonic's account 0, as a
// user would: three ERC-20 tokens, WETH9, V2's factory and router with a pair of each two tokens,
// V3's factory, swap router, position manager and quoter with a 0.3% pool of each two tokens,
// each pool holding a full-range position and narrow ones every 120 ticks around its price (so a
// swap of the workloads crosses initialized ticks), and the senders funded with the tokens and
// their approvals given. Every address is computed before anything is sent (CREATE from the
// deployer's nonces, CREATE2 for pairs and pools), so the whole set-up is signed up front and the
// same bytes go to every node.
import {
  encodeAbiParameters,
  encodeDeployData,
  encodeFunctionData,
  encodePacked,
  getContractAddress,
  type Hex,
  keccak256,
  maxUint256,
} from "viem";
import type { TxSigner } from "./txSigner.ts";
import { mineBlock } from "./txSigner.ts";
import {
  type UniswapArtifacts,
  uniswapArtifacts,
  V2_PAIR_INIT_HASH,
  V3_POOL_INIT_HASH,
} from "./uniswapArtifacts.ts";

/** V3 pools' fee tier (0.3%) and its tick spacing. */
export const V3_FEE = 3000;
export const TICK_SPACING = 60;
/**
 * The narrow positions: [t, t + NARROW_WIDTH] for t from -reach up to reach, in steps of the
 * width (reach: NARROW_REACH unless the set-up is given another).
 */
export const NARROW_WIDTH = 120;
const NARROW_REACH = 600;
/** V3's widest ticks at spacing 60. */
const MAX_TICK = 887_220;
/** A deadline no block reaches. */
export const FAR_DEADLINE = 2n ** 48n;
const TOKEN_SUPPLY = 10n ** 30n;
const V2_LIQUIDITY = 10n ** 24n;
const V3_FULL_RANGE = 10n ** 21n;
const V3_NARROW = 10n ** 19n;
/** Each sender's balance of each token. */
export const SENDER_TOKENS = 10n ** 24n;

export type UniswapDeployment = {
  readonly deployer: number;
  /** The accounts the workloads send from (funded and approved). */
  readonly senders: readonly number[];
  readonly tokens: readonly [Hex, Hex, Hex];
  readonly weth: Hex;
  readonly v2Factory: Hex;
  readonly v2Router: Hex;
  /** The V2 pairs A/B, B/C, C/A. */
  readonly v2Pairs: readonly [Hex, Hex, Hex];
  readonly v3Factory: Hex;
  readonly swapRouter: Hex;
  readonly positionManager: Hex;
  readonly quoter: Hex;
  /** The V3 pools A/B, B/C, C/A (fee V3_FEE). */
  readonly v3Pools: readonly [Hex, Hex, Hex];
};

export type UniswapSetup = {
  readonly deployment: UniswapDeployment;
  /** The set-up's transactions, one list per block, in sending order. */
  readonly blocks: readonly (readonly Hex[])[];
};

const sorted = (a: Hex, b: Hex): [Hex, Hex] =>
  a.toLowerCase() < b.toLowerCase() ? [a, b] : [b, a];

function v2PairAddress(factory: Hex, a: Hex, b: Hex): Hex {
  const [t0, t1] = sorted(a, b);
  return getContractAddress({
    opcode: "CREATE2",
    from: factory,
    salt: keccak256(encodePacked(["address", "address"], [t0, t1])),
    bytecodeHash: V2_PAIR_INIT_HASH,
  });
}

function v3PoolAddress(factory: Hex, a: Hex, b: Hex): Hex {
  const [t0, t1] = sorted(a, b);
  return getContractAddress({
    opcode: "CREATE2",
    from: factory,
    salt: keccak256(
      encodeAbiParameters(
        [{ type: "address" }, { type: "address" }, { type: "uint24" }],
        [t0, t1, V3_FEE],
      ),
    ),
    bytecodeHash: V3_POOL_INIT_HASH,
  });
}

/** Signs the set-up (the signer's nonces advance): the deployment and its blocks. */
export async function signUniswapSetup(
  signer: TxSigner,
  senders: readonly number[],
  opts: { readonly deployer?: number; readonly narrowReach?: number } = {},
): Promise<UniswapSetup> {
  const deployer = opts.deployer ?? 0;
  const reach = opts.narrowReach ?? NARROW_REACH;
  const art = uniswapArtifacts();
  const from = signer.address(deployer);
  const n0 = BigInt(signer.nonces[deployer]!);
  const at = (k: number) => getContractAddress({ from, nonce: n0 + BigInt(k) });
  const tokens: [Hex, Hex, Hex] = [at(0), at(1), at(2)];
  const [weth, v2Factory, v2Router, v3Factory, swapRouter, positionManager, quoter] = [
    at(3),
    at(4),
    at(5),
    at(6),
    at(7),
    at(8),
    at(9),
  ];
  const pairsOf = <T>(f: (a: Hex, b: Hex) => T): [T, T, T] => [
    f(tokens[0], tokens[1]),
    f(tokens[1], tokens[2]),
    f(tokens[2], tokens[0]),
  ];
  const deployment: UniswapDeployment = {
    deployer,
    senders,
    tokens,
    weth,
    v2Factory,
    v2Router,
    v2Pairs: pairsOf((a, b) => v2PairAddress(v2Factory, a, b)),
    v3Factory,
    swapRouter,
    positionManager,
    quoter,
    v3Pools: pairsOf((a, b) => v3PoolAddress(v3Factory, a, b)),
  };
  const deploy = (a: { abi: UniswapArtifacts["erc20"]["abi"]; bytecode: Hex }, args: unknown[]) =>
    signer.sign(deployer, {
      data: encodeDeployData({ abi: a.abi, bytecode: a.bytecode, args }),
      gas: 8_000_000n,
    });
  // Block 1: the contracts, in the nonce order the addresses above assume.
  const contracts: Hex[] = [];
  for (let i = 0; i < 3; i++) contracts.push(await deploy(art.erc20, [TOKEN_SUPPLY]));
  contracts.push(await deploy(art.weth, []));
  contracts.push(await deploy(art.v2Factory, [from]));
  contracts.push(await deploy(art.v2Router, [v2Factory, weth]));
  contracts.push(await deploy(art.v3Factory, []));
  contracts.push(await deploy(art.swapRouter, [v3Factory, weth]));
  // No token descriptor: the positions' tokenURI is not asked for.
  contracts.push(await deploy(art.positionManager, [v3Factory, weth, `0x${"00".repeat(20)}`]));
  contracts.push(await deploy(art.quoter, [v3Factory, weth]));

  // Block 2: the pairs and pools with their liquidity.
  const call = (abi: UniswapArtifacts["erc20"]["abi"], name: string, args: unknown[]) =>
    encodeFunctionData({ abi, functionName: name, args });
  const liquidity: Hex[] = [];
  for (const t of tokens)
    for (const spender of [v2Router, positionManager])
      liquidity.push(
        await signer.sign(deployer, {
          to: t,
          data: call(art.erc20.abi, "approve", [spender, maxUint256]),
          gas: 100_000n,
        }),
      );
  for (const [a, b] of pairsOf((a, b) => [a, b] as const))
    liquidity.push(
      await signer.sign(deployer, {
        to: v2Router,
        data: call(art.v2Router.abi, "addLiquidity", [
          a,
          b,
          V2_LIQUIDITY,
          V2_LIQUIDITY,
          0n,
          0n,
          from,
          FAR_DEADLINE,
        ]),
        gas: 4_000_000n,
      }),
    );
  for (const [a, b] of pairsOf((a, b) => sorted(a, b))) {
    // Price 1: sqrtPriceX96 = 2^96, tick 0.
    liquidity.push(
      await signer.sign(deployer, {
        to: positionManager,
        data: call(art.positionManager.abi, "createAndInitializePoolIfNecessary", [
          a,
          b,
          V3_FEE,
          2n ** 96n,
        ]),
        gas: 6_000_000n,
      }),
    );
    const ranges: [number, number, bigint][] = [[-MAX_TICK, MAX_TICK, V3_FULL_RANGE]];
    for (let t = -reach; t < reach; t += NARROW_WIDTH)
      ranges.push([t, t + NARROW_WIDTH, V3_NARROW]);
    for (const [lower, upper, amount] of ranges)
      liquidity.push(
        await signer.sign(deployer, {
          to: positionManager,
          data: call(art.positionManager.abi, "mint", [
            {
              token0: a,
              token1: b,
              fee: V3_FEE,
              tickLower: lower,
              tickUpper: upper,
              amount0Desired: amount,
              amount1Desired: amount,
              amount0Min: 0n,
              amount1Min: 0n,
              recipient: from,
              deadline: FAR_DEADLINE,
            },
          ]),
          gas: 1_000_000n,
        }),
      );
  }

  // Block 3: every sender's tokens, and its approvals of both routers.
  const funding: Hex[] = [];
  for (const s of senders)
    for (const t of tokens)
      funding.push(
        await signer.sign(deployer, {
          to: t,
          data: call(art.erc20.abi, "transfer", [signer.address(s), SENDER_TOKENS]),
          gas: 100_000n,
        }),
      );
  for (const s of senders)
    for (const t of tokens)
      for (const spender of [v2Router, swapRouter])
        funding.push(
          await signer.sign(s, {
            to: t,
            data: call(art.erc20.abi, "approve", [spender, maxUint256]),
            gas: 100_000n,
          }),
        );
  return { deployment, blocks: [contracts, liquidity, funding] };
}

/**
 * Deploys Uniswap V2 and V3 on the node at `rpcUrl` (flashnode dev or anvil; blocks by
 * `evm_mine`), funding and approving `senders` (default: accounts 1 to 9, of the ten both
 * nodes fund by default); `beforeBlock` runs
 * before each block's transactions are sent (a test setting the block's timestamp).
 */
export async function deployUniswap(
  rpcUrl: string,
  signer: TxSigner,
  opts: {
    senders?: readonly number[];
    beforeBlock?: () => Promise<void>;
  } = {},
): Promise<UniswapDeployment> {
  const setup = await signUniswapSetup(
    signer,
    opts.senders ?? Array.from({ length: 9 }, (_, i) => i + 1),
  );
  await runSetup(rpcUrl, setup, opts.beforeBlock);
  return setup.deployment;
}

/** Sends an already signed set-up to a node, block by block. */
export async function runSetup(
  rpcUrl: string,
  setup: UniswapSetup,
  beforeBlock?: () => Promise<void>,
): Promise<void> {
  for (const block of setup.blocks) {
    await beforeBlock?.();
    await mineBlock(rpcUrl, block);
  }
}
