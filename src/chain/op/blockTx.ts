// Transactions and blocks as stored or imported, with OP-stack deposits (type 0x7e) beside the
// types the EVM library decodes itself.
import {
  Block,
  type BlockBytes,
  type BlockOptions,
  createBlockFromBytesArray,
} from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { createTxFromBlockBodyData, type TypedTransaction } from "@ethereumjs/tx";
import { pinSender, rememberEncoding } from "../txFacts.ts";
import { DEPOSIT_TX_TYPE, type DepositTx, decodeDepositTx } from "./depositTx.ts";

/** A block's transactions: signed ones, and an OP-stack chain's deposits. */
export type BlockTransaction = TypedTransaction | DepositTx;

/**
 * A block body's transaction (2718 bytes, or a legacy transaction's RLP list as bytes), with its
 * bytes (and its hash, when the caller has it) kept for it (txFacts.ts).
 */
export function decodeBlockTransaction(
  raw: Uint8Array,
  common: Common,
  hash?: Uint8Array,
): BlockTransaction {
  if (raw[0] === DEPOSIT_TX_TYPE) return decodeDepositTx(raw, common);
  const tx = pinSender(createTxFromBlockBodyData(raw, { common, freeze: false }));
  rememberEncoding(tx, raw, hash);
  return tx;
}

/**
 * A block from its RLP. Without deposits this is the library's own decoding; with them the
 * header, uncles and withdrawals still are, and the transactions are decoded here.
 */
export function blockFromRlp(bytes: Uint8Array, opts: BlockOptions): Block {
  const values = RLP.decode(bytes) as unknown as BlockBytes;
  if (!Array.isArray(values) || !Array.isArray(values[1]))
    throw new Error("invalid block RLP: expected a list with a transaction list");
  const txs = values[1] as Uint8Array[];
  if (!txs.some((t) => t instanceof Uint8Array && t[0] === DEPOSIT_TX_TYPE))
    return createBlockFromBytesArray(values, opts);
  const shell = createBlockFromBytesArray(
    [values[0], [], ...values.slice(2)] as unknown as BlockBytes,
    opts,
  );
  const transactions = txs.map((raw) => decodeBlockTransaction(raw, shell.header.common));
  return new Block(
    shell.header,
    transactions as TypedTransaction[],
    shell.uncleHeaders,
    shell.withdrawals,
    opts,
  );
}
