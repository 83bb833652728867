// Flashblock updates made up for tests and benches of the pending block: a block's base, one
// flashblock's transactions, receipts and diff, and random diffs over small key sets (so that
// flashblocks overwrite and wipe each other's keys).
import type { AccountRecord, Log, ReceiptRecord } from "../../src/chain/types.ts";
import type {
  FlashblockUpdate,
  PendingBase,
  PendingTransaction,
  StateDiff,
} from "../../src/pending/types.ts";

export const NO_DIFF: StateDiff = { accounts: [], storage: [], wiped: [], code: [] };

export function pendingBase(number: number): PendingBase {
  return {
    number,
    parentHash: new Uint8Array(32).fill(number & 0xff),
    timestamp: 1_700_000_000n + BigInt(number) * 2n,
    gasLimit: 30_000_000n,
    baseFeePerGas: 1_000_000n,
    coinbase: new Uint8Array(20).fill(0xc0),
    prevRandao: new Uint8Array(32),
    parentBeaconBlockRoot: new Uint8Array(32),
    extraData: new Uint8Array(0),
    blobGasPrice: 1n,
    excessBlobGas: 0n,
  };
}

/** A transaction and its receipt with `logs` logs; `id` makes its hash. */
export function sentTransaction(
  id: number,
  logs = 1,
): { transaction: PendingTransaction; receipt: ReceiptRecord } {
  const hash = new Uint8Array(32);
  new DataView(hash.buffer).setUint32(0, id);
  hash[31] = 0x7a;
  const raw = new Uint8Array(110).fill(id & 0xff);
  raw[0] = 2;
  const from = new Uint8Array(20).fill((id * 7) & 0xff);
  const log: Log = {
    address: new Uint8Array(20).fill(0x70),
    topics: [new Uint8Array(32).fill(1), new Uint8Array(32).fill(2), new Uint8Array(32).fill(3)],
    data: new Uint8Array(32).fill(id & 0xff),
  };
  return {
    transaction: { hash, raw, receivedAt: 1_700_000_000_000 + id },
    receipt: {
      type: 2,
      status: 1,
      root: undefined,
      cumulativeGasUsed: 21_000n * BigInt(id + 1),
      gasUsed: 21_000n,
      effectiveGasPrice: 1_000_000n,
      from,
      to: new Uint8Array(20).fill(0x70),
      contractAddress: undefined,
      transactionHash: hash,
      logsBloom: new Uint8Array(256),
      logs: Array.from({ length: logs }, () => log),
      blobGasUsed: undefined,
      blobGasPrice: undefined,
    },
  };
}

export function flashblock(
  number: number,
  index: number,
  diff: StateDiff = NO_DIFF,
  sent: ReadonlyArray<ReturnType<typeof sentTransaction>> = [],
): FlashblockUpdate {
  return {
    kind: "flashblock",
    base: pendingBase(number),
    index,
    transactions: sent.map((s) => s.transaction),
    receipts: sent.map((s) => s.receipt),
    diff,
    gasUsed: 21_000n * BigInt(sent.length),
    blobGasUsed: 0n,
    logsBloom: new Uint8Array(256),
    receiptsRoot: new Uint8Array(32),
    transactionsRoot: new Uint8Array(32),
    wire: {
      payloadId: `0x${number.toString(16).padStart(16, "0")}`,
      blockHash: new Uint8Array(32).fill(index + 1),
    },
    buildMs: 1,
    publishedAt: 1_700_000_000_000 + number * 2_000 + index * 200,
  };
}

/** A deterministic generator (xorshift32) from a seed. */
export function random(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 0x1_0000_0000;
  };
}

export function bytesOf(length: number, next: () => number): Uint8Array {
  const out = new Uint8Array(length);
  for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
  return out;
}

/** A 32-byte word with leading zeros trimmed (as diffs carry storage values); may be empty. */
export function storageValue(next: () => number): Uint8Array {
  const length = Math.floor(next() * 33);
  const v = bytesOf(length, next);
  if (length > 0 && v[0] === 0) v[0] = 1;
  return v;
}

export function accountRecord(next: () => number, codeHash?: Uint8Array): AccountRecord {
  const big = next() < 0.5;
  return {
    nonce: BigInt(Math.floor(next() * 1000)),
    balance: big
      ? (BigInt(Math.floor(next() * 2 ** 32)) << 200n) + BigInt(Math.floor(next() * 2 ** 40))
      : BigInt(Math.floor(next() * 2 ** 50)) * 1_000_000_000n,
    codeHash,
  };
}

/** Keys a random diff draws from: few enough that flashblocks hit each other's. */
export type KeyUniverse = {
  readonly addresses: readonly Uint8Array[];
  readonly slots: readonly Uint8Array[];
  readonly codes: ReadonlyArray<readonly [Uint8Array, Uint8Array]>;
};

export function keyUniverse(next: () => number, addresses = 12, slots = 8): KeyUniverse {
  const slotKeys = Array.from({ length: slots }, (_, i) => {
    // Small slot numbers (leading zeros) and hashed ones, as contracts use both.
    if (i % 2 === 0) {
      const s = new Uint8Array(32);
      s[31] = i;
      return s;
    }
    return bytesOf(32, next);
  });
  return {
    addresses: Array.from({ length: addresses }, () => bytesOf(20, next)),
    slots: slotKeys,
    codes: Array.from({ length: 4 }, () => {
      const code = bytesOf(1 + Math.floor(next() * 300), next);
      return [bytesOf(32, next), code] as const;
    }),
  };
}

/** A diff over the universe: account sets and removals, slot writes, wipes, code. */
export function randomDiff(next: () => number, keys: KeyUniverse): StateDiff {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!;
  const accounts: Array<readonly [Uint8Array, AccountRecord | undefined]> = [];
  const storage: Array<readonly [Uint8Array, Uint8Array, Uint8Array]> = [];
  const wiped: Uint8Array[] = [];
  const code: Array<readonly [Uint8Array, Uint8Array]> = [];
  const n = Math.floor(next() * 8);
  for (let i = 0; i < n; i++) {
    const r = next();
    const codeEntry = next() < 0.3 ? pick(keys.codes) : undefined;
    accounts.push([
      pick(keys.addresses),
      r < 0.15 ? undefined : accountRecord(next, codeEntry?.[0]),
    ]);
    if (codeEntry !== undefined) code.push(codeEntry);
  }
  const m = Math.floor(next() * 12);
  for (let i = 0; i < m; i++)
    storage.push([pick(keys.addresses), pick(keys.slots), storageValue(next)]);
  if (next() < 0.25) wiped.push(pick(keys.addresses));
  return { accounts, storage, wiped, code };
}
