// Blocks and transactions as geth's RPCMarshalBlock / RPCTransaction render them.
import type { BlockView, HeaderView, TransactionView } from "../../chain/blockView.ts";
import type { OpReceiptFields } from "../../chain/types.ts";
import { array, data, dataOrNull, object, qty } from "../../util/json.ts";

export type TxContext = {
  readonly blockHash: Uint8Array;
  readonly blockNumber: bigint;
  readonly blockTimestamp: bigint;
  readonly baseFeePerGas: bigint | undefined;
  readonly index: number;
  readonly from: Uint8Array;
  /** OP stack: the receipt's deposit fields (a deposit's nonce is its receipt's depositNonce). */
  readonly op?: OpReceiptFields | undefined;
};

/** What a 1559-style transaction paid per gas in its block (geth: gasPrice of a mined tx). */
function paidGasPrice(tx: TransactionView, baseFee: bigint | undefined): bigint {
  if (tx.maxFeePerGas === undefined || tx.maxPriorityFeePerGas === undefined)
    return tx.gasPrice ?? 0n;
  if (baseFee === undefined) return tx.maxFeePerGas;
  const price = baseFee + tx.maxPriorityFeePerGas;
  if (price < tx.maxFeePerGas) return price;
  return tx.maxFeePerGas;
}

export function transactionJson(tx: TransactionView, ctx: TxContext): string {
  return renderTransaction(tx, ctx.from, ctx);
}

/**
 * A transaction no block holds yet (geth's NewRPCPendingTransaction: txpool_content): no block
 * fields, and a 1559-style transaction's gasPrice is its fee cap.
 */
export function poolTransactionJson(tx: TransactionView, from: Uint8Array): string {
  return renderTransaction(tx, from, undefined);
}

function renderTransaction(
  tx: TransactionView,
  from: Uint8Array,
  ctx: TxContext | undefined,
): string {
  const typed = tx.type !== 0;
  const deposit = tx.deposit;
  if (deposit !== undefined) return renderDeposit(tx, deposit, ctx);
  return object([
    ["blockHash", ctx === undefined ? "null" : data(ctx.blockHash)],
    ["blockNumber", ctx === undefined ? "null" : qty(ctx.blockNumber)],
    ["blockTimestamp", ctx === undefined ? "null" : qty(ctx.blockTimestamp)],
    ["from", data(from)],
    ["gas", qty(tx.gasLimit)],
    ["gasPrice", qty(paidGasPrice(tx, ctx?.baseFeePerGas))],
    ["maxFeePerGas", tx.maxFeePerGas === undefined ? undefined : qty(tx.maxFeePerGas)],
    [
      "maxPriorityFeePerGas",
      tx.maxPriorityFeePerGas === undefined ? undefined : qty(tx.maxPriorityFeePerGas),
    ],
    ["maxFeePerBlobGas", tx.maxFeePerBlobGas === undefined ? undefined : qty(tx.maxFeePerBlobGas)],
    ["hash", data(tx.hash)],
    ["input", data(tx.input)],
    ["nonce", qty(tx.nonce)],
    ["to", dataOrNull(tx.to)],
    ["transactionIndex", ctx === undefined ? "null" : qty(ctx.index)],
    ["value", qty(tx.value)],
    ["type", qty(tx.type)],
    [
      "accessList",
      tx.accessList === undefined
        ? undefined
        : array(tx.accessList, (e) =>
            object([
              ["address", data(e.address)],
              ["storageKeys", array(e.storageKeys, data)],
            ]),
          ),
    ],
    ["chainId", tx.chainId === undefined ? undefined : qty(tx.chainId)],
    [
      "blobVersionedHashes",
      tx.blobVersionedHashes === undefined ? undefined : array(tx.blobVersionedHashes, data),
    ],
    [
      "authorizationList",
      tx.authorizationList === undefined
        ? undefined
        : array(tx.authorizationList, (a) =>
            object([
              ["chainId", qty(a.chainId)],
              ["address", data(a.address)],
              ["nonce", qty(a.nonce)],
              ["yParity", qty(a.yParity)],
              ["r", qty(a.r)],
              ["s", qty(a.s)],
            ]),
          ),
    ],
    ["v", qty(tx.v)],
    ["r", qty(tx.r)],
    ["s", qty(tx.s)],
    ["yParity", typed ? qty(tx.v) : undefined],
  ]);
}

/**
 * An OP-stack deposit as op-geth renders it: gasPrice 0, zero signature, `sourceHash`, `mint`
 * (when non-zero), `isSystemTx` only when true, and the nonce and receipt version its receipt
 * records.
 */
function renderDeposit(
  tx: TransactionView,
  d: NonNullable<TransactionView["deposit"]>,
  ctx: TxContext | undefined,
): string {
  const version = ctx?.op?.depositReceiptVersion;
  return object([
    ["blockHash", ctx === undefined ? "null" : data(ctx.blockHash)],
    ["blockNumber", ctx === undefined ? "null" : qty(ctx.blockNumber)],
    ["blockTimestamp", ctx === undefined ? "null" : qty(ctx.blockTimestamp)],
    ["from", data(d.from)],
    ["gas", qty(tx.gasLimit)],
    ["gasPrice", qty(0n)],
    ["hash", data(tx.hash)],
    ["input", data(tx.input)],
    ["nonce", qty(ctx?.op?.depositNonce ?? 0n)],
    ["to", dataOrNull(tx.to)],
    ["transactionIndex", ctx === undefined ? "null" : qty(ctx.index)],
    ["value", qty(tx.value)],
    ["type", qty(tx.type)],
    ["v", qty(0n)],
    ["r", qty(0n)],
    ["s", qty(0n)],
    ["sourceHash", data(d.sourceHash)],
    ["mint", d.mint === 0n ? undefined : qty(d.mint)],
    ["isSystemTx", d.isSystemTx ? "true" : undefined],
    ["depositReceiptVersion", version === undefined ? undefined : qty(version)],
  ]);
}

function headerFields(h: HeaderView): Array<readonly [string, string | undefined]> {
  return [
    ["baseFeePerGas", h.baseFeePerGas === undefined ? undefined : qty(h.baseFeePerGas)],
    ["blobGasUsed", h.blobGasUsed === undefined ? undefined : qty(h.blobGasUsed)],
    ["difficulty", qty(h.difficulty)],
    ["excessBlobGas", h.excessBlobGas === undefined ? undefined : qty(h.excessBlobGas)],
    ["extraData", data(h.extraData)],
    ["gasLimit", qty(h.gasLimit)],
    ["gasUsed", qty(h.gasUsed)],
    ["hash", data(h.hash)],
    ["logsBloom", data(h.logsBloom)],
    ["miner", data(h.coinbase)],
    ["mixHash", data(h.mixHash)],
    ["nonce", data(h.nonce)],
    ["number", qty(h.number)],
    [
      "parentBeaconBlockRoot",
      h.parentBeaconBlockRoot === undefined ? undefined : data(h.parentBeaconBlockRoot),
    ],
    ["parentHash", data(h.parentHash)],
    ["receiptsRoot", data(h.receiptTrie)],
    ["requestsHash", h.requestsHash === undefined ? undefined : data(h.requestsHash)],
    ["sha3Uncles", data(h.uncleHash)],
  ];
}

/** A header as geth's RPCMarshalHeader renders it (the `newHeads` subscription payload). */
export function headerJson(h: HeaderView): string {
  return object([
    ...headerFields(h),
    ["stateRoot", data(h.stateRoot)],
    ["timestamp", qty(h.timestamp)],
    ["transactionsRoot", data(h.transactionsTrie)],
    ["withdrawalsRoot", h.withdrawalsRoot === undefined ? undefined : data(h.withdrawalsRoot)],
  ]);
}

/**
 * `senders` are the transactions' senders, in order (taken from stored receipts: recovering
 * them from signatures on every read would dominate the cost).
 */
export function blockJson(
  block: BlockView,
  fullTransactions: boolean,
  senders: readonly Uint8Array[],
  extra: ReadonlyArray<readonly [string, string]> = [],
  ops?: readonly (OpReceiptFields | undefined)[],
): string {
  const h = block.header;
  const transactions = fullTransactions
    ? array(block.transactions, (tx, index) =>
        transactionJson(tx, {
          blockHash: h.hash,
          blockNumber: h.number,
          blockTimestamp: h.timestamp,
          baseFeePerGas: h.baseFeePerGas,
          index,
          from: senders[index]!,
          op: ops?.[index],
        }),
      )
    : array(block.transactions, (tx) => data(tx.hash));
  return blockObject(block, transactions, extra);
}

/**
 * An uncle as geth renders it (RPCMarshalBlock of a block made of the uncle header alone): the
 * header fields, `size` and an empty `uncles`, no `transactions` key.
 */
export function uncleJson(uncle: BlockView): string {
  return blockObject(uncle, undefined);
}

function blockObject(
  block: BlockView,
  transactions: string | undefined,
  extra: ReadonlyArray<readonly [string, string]> = [],
): string {
  const h = block.header;
  return object([
    ...headerFields(h),
    ...extra,
    ["size", qty(block.size)],
    ["stateRoot", data(h.stateRoot)],
    ["timestamp", qty(h.timestamp)],
    ["transactions", transactions],
    ["transactionsRoot", data(h.transactionsTrie)],
    ["uncles", array(block.uncleHashes, data)],
    [
      "withdrawals",
      block.withdrawals === undefined
        ? undefined
        : array(block.withdrawals, (w) =>
            object([
              ["index", qty(w.index)],
              ["validatorIndex", qty(w.validatorIndex)],
              ["address", data(w.address)],
              ["amount", qty(w.amount)],
            ]),
          ),
    ],
    ["withdrawalsRoot", h.withdrawalsRoot === undefined ? undefined : data(h.withdrawalsRoot)],
  ]);
}
