import type { RpcBackend } from "../../services/backend.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { quantity } from "../../util/hex.ts";
import { defineMethod, optional, required } from "../method.ts";
import { parseBlockNumberOnly } from "../params.ts";
import { resolveBlock } from "../resolveBlock.ts";

/** geth's maxBlockFetchers-era cap on blocks per call, and on reward percentiles. */
export const FEE_HISTORY_MAX_BLOCKS = 1024;
export const FEE_HISTORY_MAX_PERCENTILES = 100;

/** math.HexOrDecimal64: a JSON number, or a string in hex (0x) or decimal. */
function parseBlockCount(raw: unknown): number {
  let n: number;
  if (typeof raw === "number") n = raw;
  else if (typeof raw === "string")
    n =
      raw.startsWith("0x") || raw.startsWith("0X")
        ? Number.parseInt(raw.slice(2), 16)
        : Number(raw);
  else
    throw new InvalidParamsError(
      "json: cannot unmarshal non-string into Go value of type math.HexOrDecimal64",
    );
  if (!Number.isInteger(n) || n < 0)
    throw new InvalidParamsError(`invalid hex or decimal integer ${JSON.stringify(raw)}`);
  return n;
}

function parsePercentiles(raw: unknown): number[] {
  if (!Array.isArray(raw) || raw.some((p) => typeof p !== "number")) {
    throw new InvalidParamsError("json: cannot unmarshal into Go value of type []float64");
  }
  return raw as number[];
}

/** eth_feeHistory(blockCount, newestBlock, rewardPercentiles?) as geth answers it. */
export function feeHistory(backend: RpcBackend) {
  return defineMethod({
    params: [required(parseBlockCount), required(parseBlockNumberOnly), optional(parsePercentiles)],
    reads: "ownBlocks",
    handler: ([count, selector, percentiles]) => {
      if (percentiles !== undefined) {
        if (percentiles.length > FEE_HISTORY_MAX_PERCENTILES) {
          throw new InvalidParamsError(`too many percentiles (max ${FEE_HISTORY_MAX_PERCENTILES})`);
        }
        percentiles.forEach((p, i) => {
          if (p < 0 || p > 100) throw new InvalidParamsError(`invalid reward percentile: ${p}`);
          if (i > 0 && p < percentiles[i - 1]!) {
            throw new InvalidParamsError(
              `invalid reward percentile: #${i - 1}:${percentiles[i - 1]} > #${i}:${p}`,
            );
          }
        });
      }
      const newest = resolveBlock(backend, selector);
      if (count === 0 || newest === undefined) return { oldestBlock: "0x0", gasUsedRatio: null };
      // A fork's blocks before F are its upstream's: the history starts at F.
      const blocks = Math.min(
        count,
        FEE_HISTORY_MAX_BLOCKS,
        newest.number - backend.firstBlock + 1,
      );
      const oldest = newest.number - blocks + 1;
      const baseFees: string[] = [];
      const blobFees: string[] = [];
      const gasUsedRatio: number[] = [];
      const blobGasUsedRatio: number[] = [];
      const rewards: string[][] = [];
      for (let n = oldest; n <= newest.number; n++) {
        const hash = backend.chain.canonicalHash(n)!;
        const fees = backend.decoder.fees(backend.chain.headerRlp(n, hash)!);
        baseFees.push(quantity(fees.baseFee ?? 0n));
        blobFees.push(quantity(fees.blobBaseFee ?? 0n));
        gasUsedRatio.push(fees.gasLimit === 0n ? 0 : Number(fees.gasUsed) / Number(fees.gasLimit));
        blobGasUsedRatio.push(
          fees.maxBlobGas ? Number(fees.blobGasUsed ?? 0n) / Number(fees.maxBlobGas) : 0,
        );
        if (percentiles !== undefined) {
          const receipts = backend.chain.receipts(n, hash)?.receipts ?? [];
          const tips = receipts
            // An OP-stack deposit pays no fee: its tip is 0 (op-geth's EffectiveGasTip).
            .map((r) => ({
              tip: r.type === 0x7e ? 0n : r.effectiveGasPrice - (fees.baseFee ?? 0n),
              gas: r.gasUsed,
            }))
            .sort((a, b) => (a.tip < b.tip ? -1 : a.tip > b.tip ? 1 : 0));
          rewards.push(
            percentiles.map((p) => {
              if (tips.length === 0) return "0x0";
              const threshold = (Number(fees.gasUsed) * p) / 100;
              let sum = 0;
              for (const t of tips) {
                sum += Number(t.gas);
                if (sum >= threshold) return quantity(t.tip);
              }
              return quantity(tips[tips.length - 1]!.tip);
            }),
          );
        }
        if (n === newest.number) {
          baseFees.push(quantity(fees.nextBaseFee ?? 0n));
          blobFees.push(quantity(fees.nextBlobBaseFee ?? 0n));
        }
      }
      return {
        oldestBlock: quantity(oldest),
        ...(percentiles !== undefined ? { reward: rewards } : {}),
        // geth reports both fee series always, zeros before London and Cancun.
        baseFeePerGas: baseFees,
        gasUsedRatio,
        baseFeePerBlobGas: blobFees,
        blobGasUsedRatio,
      };
    },
  });
}
