// Base's flashblocks wire message (base/base `crates/alloy/flashblocks`): index 0 carries `base`;
// `diff` holds this flashblock's new transactions and the block's cumulative roots and gas;
// `metadata` has `block_number` plus `receipts` and `new_account_balances` as Base's richer
// (v0.5) format had them. Everything in it but the payload id and the partial block hash is in
// the update already, so the update carries those two (`wire`) and the JSON is rendered where
// /flashblocks is served, once per process: not on the sequencer's thread, not on NATS.
import type { AccountRecord, ReceiptRecord } from "../chain/types.ts";
import { bytesToHex, quantity } from "../util/hex.ts";
import type { FlashblockUpdate, PendingBase, PendingTransaction } from "./types.ts";

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
};

const ZERO_ROOT = `0x${"00".repeat(32)}`;
/** keccak256(rlp([])): the withdrawals root of a block with none (OP-stack blocks have none). */
const EMPTY_LIST_ROOT = "0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421";

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
      withdrawals_root: EMPTY_LIST_ROOT,
      blob_gas_used: quantity(w.blobGasUsed),
    },
    metadata: { block_number: w.base.number, receipts, new_account_balances: balances },
  };
  return JSON.stringify(message);
}

/** Whether wireJsonOf gives the update's wire message (without rendering it). */
export function hasWireJson(u: FlashblockUpdate): boolean {
  return u.wireJson !== undefined || (u.wire !== undefined && u.diff.accounts !== undefined);
}

const rendered = new WeakMap<FlashblockUpdate, string | null>();

/**
 * The update's wire message for /flashblocks, rendered on first use and kept per update object.
 * Undefined for an update that is not on Base's stream: one without the wire ids (`empty`, a
 * made-up one), or a laid-out diff without its accounts (withLaidOutDiffs keeps them for one).
 */
export function wireJsonOf(u: FlashblockUpdate): string | undefined {
  if (u.wireJson !== undefined) return u.wireJson;
  const known = rendered.get(u);
  if (known !== undefined) return known ?? undefined;
  const accounts = u.diff.accounts;
  const json =
    u.wire === undefined || accounts === undefined
      ? undefined
      : flashblockWireJson({
          payloadId: u.wire.payloadId,
          index: u.index,
          base: u.base,
          transactions: u.transactions,
          receipts: u.receipts,
          balances: accounts,
          receiptsRoot: u.receiptsRoot,
          logsBloom: u.logsBloom,
          gasUsed: u.gasUsed,
          blobGasUsed: u.blobGasUsed,
          partialBlockHash: u.wire.blockHash,
        });
  rendered.set(u, json ?? null);
  return json;
}
