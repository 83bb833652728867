// The contracts of the execution workloads, from the published npm artifacts (dev dependencies):
// Uniswap V2's factory and router (whose test ERC-20 and WETH9 serve as the tokens), Uniswap V3's
// factory, swap router, position manager and quoter. The bytecode is the packages' own; each
// router's pair/pool init-code hash is checked against the factory's pair/pool bytecode here, so
// a package that no longer matches fails at load, not as a swap that reverts.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { type Abi, type Hex, keccak256 } from "viem";

export type Artifact = { readonly abi: Abi; readonly bytecode: Hex };

/** Init-code hashes the routers have built in (UniswapV2Library.pairFor, PoolAddress). */
export const V2_PAIR_INIT_HASH: Hex =
  "0x96e8ac4277198ff8b6f785478aa9a39f403cb768dd02cbee326c3e7da348845f";
export const V3_POOL_INIT_HASH: Hex =
  "0xe34f199b19b2b4f47f68442619d555527d244f78a3297ea89325f843f87b8b54";

const require = createRequire(import.meta.url);

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(require.resolve(path), "utf8")) as Record<string, unknown>;
}

/** A waffle build (V2: `bytecode` unprefixed) or a hardhat artifact (V3: `bytecode` 0x…). */
function artifact(path: string): Artifact {
  const json = readJson(path);
  const raw = json.bytecode;
  if (typeof raw !== "string" || raw.replace(/^0x/, "").length === 0)
    throw new Error(`${path}: no bytecode in the artifact`);
  const links = json.linkReferences as Record<string, unknown> | undefined;
  if (links !== undefined && Object.keys(links).length > 0)
    throw new Error(`${path}: needs linked libraries`);
  return {
    abi: json.abi as Abi,
    bytecode: (raw.startsWith("0x") ? raw : `0x${raw}`) as Hex,
  };
}

export type UniswapArtifacts = {
  readonly erc20: Artifact;
  readonly weth: Artifact;
  readonly v2Factory: Artifact;
  readonly v2Pair: Artifact;
  readonly v2Router: Artifact;
  readonly v3Factory: Artifact;
  readonly v3Pool: Artifact;
  readonly swapRouter: Artifact;
  readonly positionManager: Artifact;
  readonly quoter: Artifact;
};

let loaded: UniswapArtifacts | undefined;

export function uniswapArtifacts(): UniswapArtifacts {
  if (loaded !== undefined) return loaded;
  const v3 = (name: string) => artifact(`@uniswap/v3-periphery/artifacts/contracts/${name}.json`);
  const out: UniswapArtifacts = {
    erc20: artifact("@uniswap/v2-periphery/build/ERC20.json"),
    weth: artifact("@uniswap/v2-periphery/build/WETH9.json"),
    v2Factory: artifact("@uniswap/v2-core/build/UniswapV2Factory.json"),
    v2Pair: artifact("@uniswap/v2-core/build/UniswapV2Pair.json"),
    v2Router: artifact("@uniswap/v2-periphery/build/UniswapV2Router02.json"),
    v3Factory: artifact(
      "@uniswap/v3-core/artifacts/contracts/UniswapV3Factory.sol/UniswapV3Factory.json",
    ),
    v3Pool: artifact("@uniswap/v3-core/artifacts/contracts/UniswapV3Pool.sol/UniswapV3Pool.json"),
    swapRouter: v3("SwapRouter.sol/SwapRouter"),
    positionManager: v3("NonfungiblePositionManager.sol/NonfungiblePositionManager"),
    quoter: v3("lens/QuoterV2.sol/QuoterV2"),
  };
  if (keccak256(out.v2Pair.bytecode) !== V2_PAIR_INIT_HASH)
    throw new Error("@uniswap/v2-core's pair is not the bytecode V2's router computes pairs of");
  if (keccak256(out.v3Pool.bytecode) !== V3_POOL_INIT_HASH)
    throw new Error("@uniswap/v3-core's pool is not the bytecode V3's periphery computes pools of");
  if (!out.v2Router.bytecode.includes(V2_PAIR_INIT_HASH.slice(2)))
    throw new Error("@uniswap/v2-periphery's router has another pair init-code hash");
  loaded = out;
  return out;
}
