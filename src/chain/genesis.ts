// The geth genesis format: fork schedule (Homestead … Osaka, BPO1/BPO2, blobSchedule), header
// fields and allocations, turned into the EVM library's Common and a genesis header.
import { readFileSync } from "node:fs";
import { type Block, createBlock } from "@ethereumjs/block";
import { type Common, type GethGenesis, parseGethGenesis } from "@ethereumjs/common";
import { KECCAK256_RLP, SHA256_NULL } from "@ethereumjs/util";
import { nativeCrypto } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import { hexToBytes, padLeft } from "../util/hex.ts";
import { nativeKzg } from "../util/kzg.ts";
import { ChainCommon } from "./chainCommon.ts";
import { type OpConfig, opConfigOf } from "./op/config.ts";

export class GenesisError extends FlashnodeError {
  readonly code = "GENESIS_INVALID";
}

export type GenesisAccount = {
  readonly balance: bigint;
  readonly nonce: bigint;
  readonly code: Uint8Array;
  readonly storage: ReadonlyArray<readonly [slot: Uint8Array, value: Uint8Array]>;
};

export type ChainSpec = {
  readonly chainId: bigint;
  readonly common: Common;
  readonly genesisJson: GethGenesis;
  readonly alloc: ReadonlyMap<string, GenesisAccount>;
  /** Set for an OP-stack chain (`config.optimism` in the genesis): deposits and the L1 fee. */
  readonly op: OpConfig | undefined;
};

type RawAlloc = Record<
  string,
  { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }
>;

function quantityOf(value: string | number | bigint | null | undefined, field: string): bigint {
  if (value === null) return 0n;
  if (value === undefined) return 0n;
  try {
    return BigInt(value);
  } catch {
    throw new GenesisError(`genesis: ${field} is not a number: ${String(value)}`);
  }
}

function bytesOf(value: string, field: string): Uint8Array {
  try {
    return hexToBytes(value.length % 2 === 1 ? `0x0${value.replace(/^0x/, "")}` : value);
  } catch {
    throw new GenesisError(`genesis: ${field} is not hex: ${value.slice(0, 40)}`);
  }
}

function parseAlloc(raw: RawAlloc): Map<string, GenesisAccount> {
  const out = new Map<string, GenesisAccount>();
  for (const [addr, acct] of Object.entries(raw)) {
    const hex = addr.toLowerCase().replace(/^0x/, "");
    if (!/^[0-9a-f]{40}$/.test(hex)) throw new GenesisError(`genesis: bad alloc address ${addr}`);
    const storage: [Uint8Array, Uint8Array][] = [];
    for (const [slot, value] of Object.entries(acct.storage ?? {})) {
      storage.push([
        bytesOf(slot, `storage slot of ${addr}`),
        bytesOf(value, `storage of ${addr}`),
      ]);
    }
    out.set(hex, {
      balance: quantityOf(acct.balance, `balance of ${addr}`),
      nonce: quantityOf(acct.nonce, `nonce of ${addr}`),
      code: acct.code === undefined ? new Uint8Array(0) : bytesOf(acct.code, `code of ${addr}`),
      storage,
    });
  }
  return out;
}

type BlobScheduleEntry = { target: number; max: number; baseFeeUpdateFraction: number };

/**
 * BPO forks read `target`/`max`/`blobGasPriceUpdateFraction` as fork-scoped params, which the
 * library's blobSchedule import does not set; without them the first BPO block fails.
 */
function bpoParams(genesis: GethGenesis): Record<string, Record<string, number>> {
  const schedule =
    (genesis.config as { blobSchedule?: Record<string, BlobScheduleEntry> }).blobSchedule ?? {};
  const out: Record<string, Record<string, number>> = {};
  for (const [fork, entry] of Object.entries(schedule)) {
    if (!fork.startsWith("bpo")) continue;
    out[fork] = {
      target: entry.target,
      max: entry.max,
      blobGasPriceUpdateFraction: entry.baseFeeUpdateFraction,
    };
  }
  return out;
}

/**
 * An OP-stack chain's EIP-1559 parameters (op-geth's `optimism` config: elasticity, and the
 * denominator from Canyon on, which every chain flashnode runs has from genesis). Set as London's
 * hardfork-scoped params: the block library re-applies its EIP-1559 defaults to every header's
 * Common, and hardfork-scoped values are the ones merged after them.
 */
function opBaseFeeParams(genesis: GethGenesis): Record<string, Record<string, number>> {
  const op = (genesis.config as { optimism?: Record<string, unknown> }).optimism;
  if (typeof op !== "object" || op === null) return {};
  const elasticity = Number(op.eip1559Elasticity ?? 0);
  const denominator = Number(op.eip1559DenominatorCanyon ?? op.eip1559Denominator ?? 0);
  if (!(elasticity > 0 && denominator > 0)) return {};
  return {
    london: { elasticityMultiplier: elasticity, baseFeeMaxChangeDenominator: denominator },
  };
}

export async function chainSpecFromGenesis(json: unknown): Promise<ChainSpec> {
  if (typeof json !== "object" || json === null || !("config" in json) || !("alloc" in json)) {
    throw new GenesisError("genesis: expected a geth genesis object with config and alloc");
  }
  const genesisJson = json as GethGenesis;
  const chainId = quantityOf(genesisJson.config.chainId, "config.chainId");
  let common: Common;
  try {
    // As createCommonFromGethGenesis makes it, as a ChainCommon (chainCommon.ts).
    const chain = parseGethGenesis(genesisJson, "flashnode");
    common = new ChainCommon({
      chain: { ...chain, name: chain.name ?? "Custom chain" } as never,
      params: { ...bpoParams(genesisJson), ...opBaseFeeParams(genesisJson) } as never,
      ...(chain.hardfork === undefined ? {} : { hardfork: chain.hardfork }),
      customCrypto: { ...nativeCrypto, kzg: nativeKzg },
    });
  } catch (e) {
    throw new GenesisError(`genesis: ${(e as Error).message}`);
  }
  return {
    chainId,
    common,
    genesisJson,
    alloc: parseAlloc(genesisJson.alloc as RawAlloc),
    op: opConfigOf(genesisJson.config as unknown as Record<string, unknown>),
  };
}

export async function chainSpecFromFile(path: string): Promise<ChainSpec> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new GenesisError(`cannot read genesis file ${path}: ${(e as Error).message}`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new GenesisError(`genesis file ${path} is not JSON: ${(e as Error).message}`);
  }
  return chainSpecFromGenesis(json);
}

/** A Common positioned at the fork of a given block (copies: the shared one is not mutated). */
export function commonAt(spec: ChainSpec, number: bigint, timestamp: bigint): Common {
  const common = spec.common.copy();
  common.setHardforkBy({ blockNumber: number, timestamp });
  return common;
}

export function genesisBlock(spec: ChainSpec, stateRoot: Uint8Array): Block {
  const g = spec.genesisJson;
  const common = commonAt(spec, 0n, quantityOf(g.timestamp, "timestamp"));
  const header = {
    number: 0n,
    parentHash: g.parentHash === undefined ? new Uint8Array(32) : hexToBytes(g.parentHash),
    timestamp: quantityOf(g.timestamp, "timestamp"),
    gasLimit: quantityOf(g.gasLimit, "gasLimit"),
    difficulty: quantityOf(g.difficulty, "difficulty"),
    nonce: padLeft(bytesOf(g.nonce ?? "0x0", "nonce"), 8),
    extraData: bytesOf(g.extraData ?? "0x", "extraData"),
    mixHash: bytesOf(g.mixHash ?? `0x${"00".repeat(32)}`, "mixHash"),
    coinbase: bytesOf(g.coinbase ?? `0x${"00".repeat(20)}`, "coinbase"),
    stateRoot,
    ...(common.isActivatedEIP(1559)
      ? {
          baseFeePerGas: quantityOf(
            g.baseFeePerGas ?? common.param("initialBaseFee"),
            "baseFeePerGas",
          ),
        }
      : {}),
    ...(common.isActivatedEIP(4895) ? { withdrawalsRoot: KECCAK256_RLP } : {}),
    ...(common.isActivatedEIP(4844)
      ? { excessBlobGas: quantityOf(g.excessBlobGas, "excessBlobGas"), blobGasUsed: 0n }
      : {}),
    ...(common.isActivatedEIP(4788) ? { parentBeaconBlockRoot: new Uint8Array(32) } : {}),
    ...(common.isActivatedEIP(7685) ? { requestsHash: SHA256_NULL } : {}),
  };
  return createBlock(
    { header, ...(common.isActivatedEIP(4895) ? { withdrawals: [] } : {}) },
    { common, skipConsensusFormatValidation: true },
  );
}
