// Consensus checks of a header against its parent that execution does not cover. Returns the
// first problem found, worded for the operator, or undefined.
import type { Block, BlockHeader } from "@ethereumjs/block";
import { bytesToHex, equalBytes } from "../util/hex.ts";

const MAX_EXTRA_DATA = 32;

/**
 * `followed`: a block of a chain this node follows (its own chain's rules are the upstream's:
 * an OP-stack chain sets its gas limit and EIP-1559 parameters on L1, Jovian reuses blob gas for
 * its DA footprint), so the fields those rules derive are taken as the header gives them; what
 * execution yields is still checked against it.
 */
export function validateHeader(
  block: Block,
  parent: BlockHeader,
  followed = false,
): string | undefined {
  const h = block.header;
  const common = h.common;
  if (!equalBytes(h.parentHash, parent.hash())) {
    return `parent hash ${bytesToHex(h.parentHash)} is not the archive head ${bytesToHex(parent.hash())}`;
  }
  if (h.number !== parent.number + 1n)
    return `number ${h.number} does not follow parent ${parent.number}`;
  if (h.timestamp <= parent.timestamp) {
    return `timestamp ${h.timestamp} is not after the parent's ${parent.timestamp}`;
  }
  if (h.extraData.length > MAX_EXTRA_DATA)
    return `extra data is ${h.extraData.length} bytes (max 32)`;
  if (!followed)
    try {
      h.validateGasLimit(parent);
    } catch (e) {
      return `gas limit: ${(e as Error).message}`;
    }
  if (h.gasUsed > h.gasLimit) return `gas used ${h.gasUsed} exceeds gas limit ${h.gasLimit}`;
  if (common.consensusType() !== "pos") {
    const want = h.ethashCanonicalDifficulty(parent);
    if (h.difficulty !== want) return `difficulty ${h.difficulty}, expected ${want}`;
  } else if (h.difficulty !== 0n) {
    return `difficulty ${h.difficulty} after the merge (must be 0)`;
  }
  if (!followed && common.isActivatedEIP(1559)) {
    const want = parent.common.isActivatedEIP(1559)
      ? parent.calcNextBaseFee()
      : common.param("initialBaseFee");
    if (h.baseFeePerGas !== want) return `base fee ${h.baseFeePerGas}, expected ${want}`;
  }
  if (!followed && common.isActivatedEIP(4844)) {
    const want = parent.calcNextExcessBlobGas(common);
    if (h.excessBlobGas !== want) return `excess blob gas ${h.excessBlobGas}, expected ${want}`;
    try {
      block.validateBlobTransactions(parent);
    } catch (e) {
      return `blob transactions: ${(e as Error).message}`;
    }
  }
  if (common.isActivatedEIP(7685) && h.requestsHash === undefined) {
    return "requests hash missing (required since Prague)";
  }
  return undefined;
}
