// An OP-stack chain's configuration, as op-geth reads it from a genesis file: the `optimism`
// object and the OP hardfork times beside the Ethereum ones. Absent = a plain Ethereum chain.
import { hexToBytes } from "../../util/hex.ts";

/** The OP hardforks whose execution rules this node implements, oldest first. */
export const OP_FORKS = ["regolith", "canyon", "ecotone", "fjord"] as const;
export type OpFork = (typeof OP_FORKS)[number];

export type OpConfig = {
  /** Activation timestamps; undefined = never. Bedrock is block 0 for every chain we run. */
  readonly times: Readonly<Record<OpFork, bigint | undefined>>;
};

export type OpRules = Readonly<Record<OpFork, boolean>>;

/** Predeploys and system addresses (OP specs predeploys.md, deposits.md). */
export const L1_BLOCK = hexToBytes("0x4200000000000000000000000000000000000015");
export const GAS_PRICE_ORACLE = hexToBytes("0x420000000000000000000000000000000000000f");
export const SEQUENCER_FEE_VAULT = hexToBytes("0x4200000000000000000000000000000000000011");
export const BASE_FEE_VAULT = hexToBytes("0x4200000000000000000000000000000000000019");
export const L1_FEE_VAULT = hexToBytes("0x420000000000000000000000000000000000001a");
export const L2_TO_L1_MESSAGE_PASSER = hexToBytes("0x4200000000000000000000000000000000000016");
/** The L1-info deposit's sender. */
export const DEPOSITOR_ACCOUNT = hexToBytes("0xdeaddeaddeaddeaddeaddeaddeaddeaddead0001");

function timeOf(config: Record<string, unknown>, key: string): bigint | undefined {
  const v = config[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v === "number" || typeof v === "string" || typeof v === "bigint") return BigInt(v);
  return undefined;
}

/** The OP part of a geth genesis config (`config.optimism` present), or undefined. */
export function opConfigOf(config: Record<string, unknown>): OpConfig | undefined {
  if (typeof config.optimism !== "object" || config.optimism === null) return undefined;
  return {
    times: {
      regolith: timeOf(config, "regolithTime"),
      canyon: timeOf(config, "canyonTime"),
      ecotone: timeOf(config, "ecotoneTime"),
      fjord: timeOf(config, "fjordTime"),
    },
  };
}

export function opRulesAt(op: OpConfig, timestamp: bigint): OpRules {
  const at = (t: bigint | undefined) => t !== undefined && t <= timestamp;
  return {
    regolith: at(op.times.regolith),
    canyon: at(op.times.canyon),
    ecotone: at(op.times.ecotone),
    fjord: at(op.times.fjord),
  };
}
