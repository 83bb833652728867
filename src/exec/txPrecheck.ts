// geth's checks before a transaction runs in a block (core/state_transition.go preCheck and
// buyGas, then the intrinsic gas), in geth's order and with its texts: testing_buildBlockV1
// reports a transaction that cannot be included exactly as geth does.
import type { TypedTransaction } from "@ethereumjs/tx";
import { type Address, toChecksumAddress } from "@ethereumjs/util";
import type { VM } from "@ethereumjs/vm";
import { bytesToHex } from "../util/hex.ts";

/** EIP-7825's per-transaction gas cap (Osaka). */
const MAX_TX_GAS = 2n ** 24n;
const BLOB_GAS_PER_BLOB = 131072n;

function feeCap(tx: TypedTransaction): bigint {
  return "maxFeePerGas" in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice;
}

function tipCap(tx: TypedTransaction): bigint {
  return "maxPriorityFeePerGas" in tx
    ? (tx.maxPriorityFeePerGas as bigint)
    : (tx as { gasPrice: bigint }).gasPrice;
}

/** A delegation (EIP-7702): 0xef0100 ‖ address. */
function isDelegation(code: Uint8Array): boolean {
  return code.length === 23 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00;
}

export type BlockContext = {
  readonly baseFee: bigint | undefined;
  readonly blobGasPrice: bigint | undefined;
  /** Gas the block has left. */
  readonly gasLeft: bigint;
};

/**
 * geth's words for what the EVM library refuses when it builds or decodes a transaction (its own
 * texts carry a dump of the transaction).
 */
export function libraryRefusalText(message: string): string {
  // The first line, without the "(tx type=… hash=…)" dump that would match the tests below.
  const head = message.split("\n")[0]!.replace(/\s*\(tx type=.*$/, "");
  const cap = /gas limit (\d+) exceeds the maximum allowed by EIP-7825 \((\d+)\)/.exec(head);
  if (cap !== null) return `transaction gas limit too high (cap: ${cap[2]}, tx: ${cap[1]})`;
  if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(head))
    return "max priority fee per gas higher than max fee per gas";
  if (/chain ?id/i.test(head)) return "invalid chain id for signer";
  if (/type|not supported|unsupported/i.test(head)) return "transaction type not supported";
  return `invalid transaction: ${head}`;
}

/** Why `tx` cannot run in this block now, in geth's words; undefined if it can. */
export async function precheck(
  vm: VM,
  tx: TypedTransaction,
  from: Address,
  block: BlockContext,
): Promise<string | undefined> {
  const who = toChecksumAddress(bytesToHex(from.bytes));
  const account = await vm.stateManager.getAccount(from);
  const nonce = account?.nonce ?? 0n;
  if (nonce < tx.nonce) return `nonce too high: address ${who}, tx: ${tx.nonce} state: ${nonce}`;
  if (nonce > tx.nonce) return `nonce too low: address ${who}, tx: ${tx.nonce} state: ${nonce}`;
  const common = vm.common;
  if (common.isActivatedEIP(7825) && tx.gasLimit > MAX_TX_GAS)
    return `transaction gas limit too high (cap: ${MAX_TX_GAS}, tx: ${tx.gasLimit})`;
  const code = await vm.stateManager.getCode(from);
  if (code.length > 0 && !isDelegation(code))
    return `sender not an eoa: address ${who}, len(code): ${code.length}`;
  if (block.baseFee !== undefined) {
    if (feeCap(tx) < tipCap(tx))
      return `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${tipCap(tx)}, maxFeePerGas: ${feeCap(tx)}`;
    if (feeCap(tx) < block.baseFee)
      return `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${feeCap(tx)}, baseFee: ${block.baseFee}`;
  }
  let blobGas = 0n;
  let blobFeeCap = 0n;
  if (tx.type === 3) {
    const blob = tx as TypedTransaction & {
      blobVersionedHashes: unknown[];
      maxFeePerBlobGas: bigint;
    };
    if (tx.to === undefined) return "blob transaction of type create";
    blobGas = BigInt(blob.blobVersionedHashes.length) * BLOB_GAS_PER_BLOB;
    blobFeeCap = blob.maxFeePerBlobGas;
    if (block.blobGasPrice !== undefined && blobFeeCap < block.blobGasPrice)
      return `max fee per blob gas less than block blob gas fee: address ${who} blobGasFeeCap: ${blobFeeCap}, blobBaseFee: ${block.blobGasPrice}`;
  }
  if (tx.type === 4) {
    if (tx.to === undefined)
      return `EIP-7702 transaction cannot be used to create contract (sender ${who})`;
    if (((tx as { authorizationList?: unknown[] }).authorizationList?.length ?? 0) === 0)
      return `EIP-7702 transaction with empty auth list (sender ${who})`;
  }
  if (block.gasLeft < tx.gasLimit) return "gas limit reached";
  const want = tx.gasLimit * feeCap(tx) + tx.value + blobGas * blobFeeCap;
  const have = account?.balance ?? 0n;
  if (have < want)
    return `insufficient funds for gas * price + value: address ${who} have ${have} want ${want}`;
  const intrinsic = tx.getIntrinsicGas();
  if (tx.gasLimit < intrinsic)
    return `intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`;
  return undefined;
}
