// The pre-confirmed block as it was built before it was layered (src/pending/pendingBlock.ts
// before the layers): every flashblock copies every map of the block so far. Kept only as the
// reference the layered block is compared with (src/pending/layersProperty.test.ts) and measured
// against (bench/pendingLayers.ts).
import type { AccountRecord, ReceiptRecord } from "../../src/chain/types.ts";
import type { StateView } from "../../src/pending/pendingState.ts";
import type { FlashblockUpdate, PendingTransaction, StateDiff } from "../../src/pending/types.ts";
import { bytesToUnprefixedHex } from "../../src/util/hex.ts";

export type CopiedPendingBlock = {
  readonly number: number;
  readonly index: number;
  readonly transactions: readonly PendingTransaction[];
  readonly receipts: readonly ReceiptRecord[];
  readonly txIndex: ReadonlyMap<string, number>;
  readonly accounts: ReadonlyMap<string, AccountRecord | undefined>;
  readonly storage: ReadonlyMap<string, Uint8Array>;
  readonly wiped: ReadonlySet<string>;
  readonly storageAddresses: ReadonlySet<string>;
  readonly code: ReadonlyMap<string, Uint8Array>;
};

/** The old applyFlashblock: a new snapshot with every map of `previous` copied. */
export function applyFlashblockByCopy(
  previous: CopiedPendingBlock | undefined,
  u: Pick<FlashblockUpdate, "base" | "index" | "transactions" | "receipts"> & {
    readonly diff: StateDiff;
  },
): CopiedPendingBlock {
  const fresh = previous === undefined || previous.number !== u.base.number || u.index === 0;
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
    storage.set(bytesToUnprefixedHex(address) + bytesToUnprefixedHex(slot), value);
    storageAddresses.add(bytesToUnprefixedHex(address));
  }
  for (const [hash, bytecode] of u.diff.code) code.set(bytesToUnprefixedHex(hash), bytecode);
  const first = transactions.length - u.transactions.length;
  u.transactions.forEach((t, i) => {
    txIndex.set(bytesToUnprefixedHex(t.hash), first + i);
  });
  return {
    number: u.base.number,
    index: u.index,
    transactions,
    receipts,
    txIndex,
    accounts,
    storage,
    wiped,
    storageAddresses,
    code,
  };
}

const EMPTY = new Uint8Array(0);

/** The old overlay: the copied block's writes over `parent`. */
export class CopyingOverlay implements StateView {
  constructor(
    private readonly block: CopiedPendingBlock,
    private readonly parent: StateView,
  ) {}

  account(address: Uint8Array): AccountRecord | undefined {
    const key = bytesToUnprefixedHex(address);
    return this.block.accounts.has(key)
      ? this.block.accounts.get(key)
      : this.parent.account(address);
  }

  storage(address: Uint8Array, slot: Uint8Array): Uint8Array {
    if (this.block.storageAddresses.size === 0) return this.parent.storage(address, slot);
    const hex = bytesToUnprefixedHex(address);
    if (!this.block.storageAddresses.has(hex)) return this.parent.storage(address, slot);
    const value = this.block.storage.get(hex + bytesToUnprefixedHex(slot));
    if (value !== undefined) return value;
    return this.block.wiped.has(hex) ? EMPTY : this.parent.storage(address, slot);
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.block.code.get(bytesToUnprefixedHex(codeHash)) ?? this.parent.code(codeHash);
  }
}
