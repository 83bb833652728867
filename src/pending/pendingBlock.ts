// The pre-confirmed block as RPC readers see it: an immutable snapshot, replaced (never
// mutated) the moment a flashblock arrives, so a reader always sees one consistent flashblock.
import type { AccountRecord, ReceiptRecord } from "../chain/types.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import type { FlashblockUpdate, PendingBase, PendingTransaction } from "./types.ts";

export type PendingBlock = {
  readonly base: PendingBase;
  /** false: nothing is pre-confirmed (FlashblockUpdate.empty): `pending` is `latest`. */
  readonly preconfirmed: boolean;
  readonly index: number;
  readonly transactions: readonly PendingTransaction[];
  readonly receipts: readonly ReceiptRecord[];
  /** tx hash (hex, no prefix) → position in the block. */
  readonly txIndex: ReadonlyMap<string, number>;
  readonly accounts: ReadonlyMap<string, AccountRecord | undefined>;
  readonly storage: ReadonlyMap<string, Uint8Array>;
  readonly wiped: ReadonlySet<string>;
  /** Addresses (hex) with written slots or wiped storage: the rest read through to the parent. */
  readonly storageAddresses: ReadonlySet<string>;
  readonly code: ReadonlyMap<string, Uint8Array>;
  readonly gasUsed: bigint;
  readonly blobGasUsed: bigint;
  readonly logsBloom: Uint8Array;
  readonly receiptsRoot: Uint8Array;
  readonly transactionsRoot: Uint8Array;
  /** When the newest flashblock of this block was published (epoch ms). */
  readonly updatedAt: number;
};

export function storageId(address: Uint8Array, slot: Uint8Array): string {
  return bytesToUnprefixedHex(address) + bytesToUnprefixedHex(slot);
}

/** The snapshot after one more flashblock; a flashblock 0 starts a new block. */
export function applyFlashblock(
  previous: PendingBlock | undefined,
  u: FlashblockUpdate,
): PendingBlock {
  const fresh = previous === undefined || previous.base.number !== u.base.number || u.index === 0;
  const accounts = new Map(fresh ? undefined : previous.accounts);
  const storage = new Map(fresh ? undefined : previous.storage);
  const wiped = new Set(fresh ? undefined : previous.wiped);
  const storageAddresses = new Set(fresh ? undefined : previous.storageAddresses);
  const code = new Map(fresh ? undefined : previous.code);
  const txIndex = new Map(fresh ? undefined : previous.txIndex);
  const transactions = fresh ? [...u.transactions] : [...previous.transactions, ...u.transactions];
  const receipts = fresh ? [...u.receipts] : [...previous.receipts, ...u.receipts];
  for (const address of u.diff.wiped) {
    const hex = bytesToUnprefixedHex(address);
    wiped.add(hex);
    storageAddresses.add(hex);
    for (const key of storage.keys()) if (key.startsWith(hex)) storage.delete(key);
  }
  for (const [address, account] of u.diff.accounts)
    accounts.set(bytesToUnprefixedHex(address), account);
  for (const [address, slot, value] of u.diff.storage) {
    storage.set(storageId(address, slot), value);
    storageAddresses.add(bytesToUnprefixedHex(address));
  }
  for (const [hash, bytecode] of u.diff.code) code.set(bytesToUnprefixedHex(hash), bytecode);
  const first = transactions.length - u.transactions.length;
  u.transactions.forEach((t, i) => {
    txIndex.set(bytesToUnprefixedHex(t.hash), first + i);
  });
  return {
    base: u.base,
    preconfirmed: u.empty !== true,
    index: u.index,
    transactions,
    receipts,
    txIndex,
    accounts,
    storage,
    wiped,
    storageAddresses,
    code,
    gasUsed: u.gasUsed,
    blobGasUsed: u.blobGasUsed,
    logsBloom: u.logsBloom,
    receiptsRoot: u.receiptsRoot,
    transactionsRoot: u.transactionsRoot,
    updatedAt: u.publishedAt,
  };
}
