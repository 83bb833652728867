// Base's flashblocks wire message (reference/flashblocks.md §1.2): index 0 carries `base`;
// `diff` holds this flashblock's new transactions and the block's cumulative roots and gas;
// `metadata` has `block_number` plus `receipts` and `new_account_balances` as Base's richer
// (v0.5) format had them.
import type { AccountRecord, ReceiptRecord } from "../chain/types.ts";
import type { PendingBase, PendingTransaction } from "../pending/types.ts";
import { bytesToHex, quantity } from "../util/hex.ts";

export type WireInput = {
  readonly payloadId: string;
  readonly index: number;
  readonly base: PendingBase;
  readonly transactions: readonly PendingTransaction[];
  readonly receipts: readonly ReceiptRecord[];
  readonly balances: ReadonlyArray<readonly [Uint8Array, AccountRecord | undefined]>;
  readonly receiptsRoot: Uint8Array;
  readonly logsBloom: Uint8Array;
  readonly gasUsed: bigint;
  readonly blobGasUsed: bigint;
  readonly partialBlockHash: Uint8Array;
  readonly withdrawalsRoot: Uint8Array;
};

const ZERO_ROOT = `0x${"00".repeat(32)}`;

/** An OP-stack receipt's extras, named as op-geth's JSON names them (absent ones left out). */
function opWireFields(r: ReceiptRecord): Record<string, string> {
  const out: Record<string, string> = {};
  const op = r.op;
  if (op === undefined) return out;
  const fields: [string, bigint | undefined][] = [
    ["depositNonce", op.depositNonce],
    ["depositReceiptVersion", op.depositReceiptVersion],
    ["l1Fee", op.l1Fee],
    ["l1GasPrice", op.l1GasPrice],
    ["l1GasUsed", op.l1GasUsed],
    ["l1BaseFeeScalar", op.l1BaseFeeScalar],
    ["l1BlobBaseFee", op.l1BlobBaseFee],
    ["l1BlobBaseFeeScalar", op.l1BlobBaseFeeScalar],
  ];
  for (const [name, value] of fields) if (value !== undefined) out[name] = quantity(value);
  return out;
}

export function flashblockWireJson(w: WireInput): string {
  const receipts: Record<string, unknown> = {};
  for (const r of w.receipts) {
    receipts[bytesToHex(r.transactionHash)] = {
      type: quantity(r.type),
      status: r.status === 1,
      cumulativeGasUsed: quantity(r.cumulativeGasUsed),
      logs: r.logs.map((l) => ({
        address: bytesToHex(l.address),
        topics: l.topics.map(bytesToHex),
        data: bytesToHex(l.data),
      })),
      ...opWireFields(r),
    };
  }
  const balances: Record<string, string> = {};
  for (const [address, account] of w.balances)
    balances[bytesToHex(address)] = quantity(account?.balance ?? 0n);
  const message = {
    payload_id: w.payloadId,
    index: w.index,
    ...(w.index === 0
      ? {
          base: {
            parent_beacon_block_root: bytesToHex(w.base.parentBeaconBlockRoot),
            parent_hash: bytesToHex(w.base.parentHash),
            fee_recipient: bytesToHex(w.base.coinbase),
            prev_randao: bytesToHex(w.base.prevRandao),
            block_number: quantity(w.base.number),
            gas_limit: quantity(w.base.gasLimit),
            timestamp: quantity(w.base.timestamp),
            extra_data: bytesToHex(w.base.extraData),
            base_fee_per_gas: quantity(w.base.baseFeePerGas),
          },
        }
      : {}),
    diff: {
      // Like Base: the state root is computed only when the block is sealed.
      state_root: ZERO_ROOT,
      receipts_root: bytesToHex(w.receiptsRoot),
      logs_bloom: bytesToHex(w.logsBloom),
      gas_used: quantity(w.gasUsed),
      block_hash: bytesToHex(w.partialBlockHash),
      transactions: w.transactions.map((t) => bytesToHex(t.raw)),
      withdrawals: [],
      withdrawals_root: bytesToHex(w.withdrawalsRoot),
      blob_gas_used: quantity(w.blobGasUsed),
    },
    metadata: { block_number: w.base.number, receipts, new_account_balances: balances },
  };
  return JSON.stringify(message);
}
