// The L1 data fee a non-deposit transaction pays (op-geth core/types/rollup_cost.go), by the
// L1 fee rules of the block's OP hardfork: Bedrock (calldata gas × overhead/scalar), Ecotone
// (calldata gas with base-fee and blob-base-fee scalars) and Fjord (FastLZ size through a linear
// regression). The parameters come from the L1Block predeploy's storage, after the block's
// L1-info deposit wrote them, or from that deposit's calldata (receipts).
import type { OpRules } from "../../chain/op/config.ts";
import type { L1FeeParams } from "../../chain/op/l1Info.ts";
import { flzCompressLen } from "./fastlz.ts";

/** What a receipt reports about a transaction's L1 fee (op-geth's l1Fee, l1GasUsed, l1GasPrice…). */
export type L1FeeInfo = {
  readonly l1Fee: bigint;
  readonly l1GasUsed: bigint;
  readonly l1GasPrice: bigint;
  readonly l1BlobBaseFee: bigint | undefined;
  readonly l1BaseFeeScalar: bigint | undefined;
  readonly l1BlobBaseFeeScalar: bigint | undefined;
};

/** Pre-Ecotone parameters (L1Block slots 1, 5 and 6). */
export type BedrockFeeParams = {
  readonly l1BaseFee: bigint;
  readonly overhead: bigint;
  readonly scalar: bigint;
};

const MIN_TX_SIZE_SCALED = 100n * 1_000_000n;
const INTERCEPT = -42_585_600n;
const FASTLZ_COEF = 836_500n;

function calldataGas(tx: Uint8Array, regolith: boolean): bigint {
  let zeroes = 0n;
  let ones = 0n;
  for (const b of tx) {
    if (b === 0) zeroes++;
    else ones++;
  }
  return zeroes * 4n + (regolith ? ones : ones + 68n) * 16n;
}

/** Fjord: size estimated from the FastLZ length, priced at both L1 fees. */
export function fjordL1Cost(fastLzSize: bigint, p: L1FeeParams): { fee: bigint; gasUsed: bigint } {
  const feeScaled = p.baseFeeScalar * p.l1BaseFee * 16n + p.blobBaseFeeScalar * p.l1BlobBaseFee;
  let size = INTERCEPT + FASTLZ_COEF * fastLzSize;
  if (size < MIN_TX_SIZE_SCALED) size = MIN_TX_SIZE_SCALED;
  return { fee: (size * feeScaled) / 1_000_000_000_000n, gasUsed: (size * 16n) / 1_000_000n };
}

/**
 * The L1 fee of a transaction with binary encoding `tx` (its EIP-2718 bytes, as signed), under
 * the rules of its block: Ecotone+ parameters, or Bedrock ones before Ecotone.
 */
export function l1FeeOf(
  tx: Uint8Array,
  rules: OpRules,
  params: L1FeeParams,
  bedrock: BedrockFeeParams,
): L1FeeInfo {
  if (!rules.ecotone) {
    const gas = calldataGas(tx, rules.regolith) + bedrock.overhead;
    return {
      l1Fee: (gas * bedrock.l1BaseFee * bedrock.scalar) / 1_000_000n,
      l1GasUsed: gas,
      l1GasPrice: bedrock.l1BaseFee,
      l1BlobBaseFee: undefined,
      l1BaseFeeScalar: undefined,
      l1BlobBaseFeeScalar: undefined,
    };
  }
  let fee: bigint;
  let gasUsed: bigint;
  if (rules.fjord) {
    ({ fee, gasUsed } = fjordL1Cost(BigInt(flzCompressLen(tx)), params));
  } else {
    gasUsed = calldataGas(tx, true);
    fee =
      (gasUsed *
        (params.l1BaseFee * 16n * params.baseFeeScalar +
          params.l1BlobBaseFee * params.blobBaseFeeScalar)) /
      16_000_000n;
  }
  return {
    l1Fee: fee,
    l1GasUsed: gasUsed,
    l1GasPrice: params.l1BaseFee,
    l1BlobBaseFee: params.l1BlobBaseFee,
    l1BaseFeeScalar: params.baseFeeScalar,
    l1BlobBaseFeeScalar: params.blobBaseFeeScalar,
  };
}
