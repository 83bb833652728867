// Flashblocks as a busy OP-stack chain publishes them, for bench/pendingLayers.ts: each
// flashblock's K transactions are 40% ERC-20 transfers, 30% Uniswap-V2 swaps and 30% Uniswap-V3
// swaps that cross ticks, with the state diff, receipts (logs) and raw transactions those write:
// senders' accounts, the fee vaults (every flashblock), token balances, pair reserves, a V3 pool's
// slot0, liquidity, fee growth, bitmap words and crossed ticks; now and then a contract deployed.
// Flashblock 0 carries the L1 attributes deposit (L1Block's slots).
import type { AccountRecord, Log, ReceiptRecord } from "../../src/chain/types.ts";
import type {
  FlashblockUpdate,
  PendingBase,
  PendingTransaction,
  StateDiff,
} from "../../src/pending/types.ts";
import { bytesOf, random } from "../../test/utils/flashblockDiffs.ts";

function fixedAddress(tag: number): Uint8Array {
  const a = new Uint8Array(20);
  a[0] = 0x42;
  a[19] = tag;
  return a;
}

function smallSlot(n: number): Uint8Array {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
}

/** A value as diffs carry it: leading zeros trimmed. */
function value(next: () => number, length = 12): Uint8Array {
  const v = bytesOf(length, next);
  v[0] = v[0]! | 1;
  return v;
}

const VAULTS = [0x11, 0x19, 0x1a].map(fixedAddress);
const L1_BLOCK = fixedAddress(0x15);

export type Workload = {
  /** Block `number`'s flashblocks: index 0 (the deposit), then `flashblocks` of `k` each. */
  block(number: number): FlashblockUpdate[];
  /** Keys to read: what the block wrote, and what it did not. */
  readonly touched: {
    readonly accounts: readonly Uint8Array[];
    readonly slots: ReadonlyArray<readonly [Uint8Array, Uint8Array]>;
  };
  readonly untouched: {
    readonly accounts: readonly Uint8Array[];
    readonly slots: ReadonlyArray<readonly [Uint8Array, Uint8Array]>;
  };
};

export function workload(opts: {
  readonly k: number;
  readonly flashblocks: number;
  readonly seed?: number;
}): Workload {
  const next = random(opts.seed ?? 7);
  const tokens = Array.from({ length: 20 }, () => bytesOf(20, next));
  const pairs = Array.from({ length: 10 }, () => bytesOf(20, next));
  const pools = Array.from({ length: 10 }, () => bytesOf(20, next));
  const senders = Array.from({ length: 5_000 }, () => bytesOf(20, next));
  const holders = Array.from({ length: 5_000 }, () => bytesOf(32, next));
  const pick = <T>(xs: readonly T[]): T => xs[(next() * xs.length) | 0]!;
  let txId = 0;
  const touchedAccounts: Uint8Array[] = [];
  const touchedSlots: Array<readonly [Uint8Array, Uint8Array]> = [];

  const account = (nonce: number): AccountRecord => ({
    nonce: BigInt(nonce),
    balance: 10n ** 18n + BigInt((next() * 1e15) | 0),
    codeHash: undefined,
  });
  const log = (address: Uint8Array, topics: number, data: number): Log => ({
    address,
    topics: Array.from({ length: topics }, () => bytesOf(32, next)),
    data: bytesOf(data, next),
  });
  const sentOne = (
    from: Uint8Array,
    to: Uint8Array,
    logs: Log[],
    gas: bigint,
  ): [PendingTransaction, ReceiptRecord] => {
    const hash = bytesOf(32, next);
    const raw = bytesOf(logs.length > 1 ? 260 : 112, next);
    raw[0] = 2;
    txId++;
    return [
      { hash, raw, receivedAt: 1_700_000_000_000 + txId },
      {
        type: 2,
        status: 1,
        root: undefined,
        cumulativeGasUsed: gas * BigInt(txId),
        gasUsed: gas,
        effectiveGasPrice: 1_000_000n,
        from,
        to,
        contractAddress: undefined,
        transactionHash: hash,
        logsBloom: new Uint8Array(256),
        logs,
        blobGasUsed: undefined,
        blobGasPrice: undefined,
        op: {
          l1Fee: 1000n,
          l1GasUsed: 1600n,
          l1GasPrice: 7n,
          l1BlobBaseFee: 1n,
          l1BaseFeeScalar: 1368n,
          l1BlobBaseFeeScalar: 810_949n,
          depositNonce: undefined,
          depositReceiptVersion: undefined,
        },
      },
    ];
  };

  const flashblockOf = (base: PendingBase, index: number): FlashblockUpdate => {
    const accounts = new Map<string, readonly [Uint8Array, AccountRecord | undefined]>();
    const storage = new Map<string, readonly [Uint8Array, Uint8Array, Uint8Array]>();
    const code: Array<readonly [Uint8Array, Uint8Array]> = [];
    const transactions: PendingTransaction[] = [];
    const receipts: ReceiptRecord[] = [];
    const write = (address: Uint8Array, slot: Uint8Array, length = 12) =>
      storage.set(Buffer.from(address).toString("hex") + Buffer.from(slot).toString("hex"), [
        address,
        slot,
        value(next, length),
      ]);
    const setAccount = (address: Uint8Array, a: AccountRecord) =>
      accounts.set(Buffer.from(address).toString("hex"), [address, a]);
    if (index === 0) {
      // The L1 attributes deposit: L1Block's number, time, base fee, hash, scalars.
      for (let s = 0; s < 8; s++) write(L1_BLOCK, smallSlot(s), 32);
      const [t, r] = sentOne(fixedAddress(0xde), L1_BLOCK, [], 45_000n);
      transactions.push(t);
      receipts.push(r);
    } else
      for (let i = 0; i < opts.k; i++) {
        const from = pick(senders);
        setAccount(from, account((next() * 1000) | 0));
        const r = next();
        let logs: Log[];
        let to: Uint8Array;
        if (r < 0.4) {
          to = pick(tokens);
          write(to, bytesOf(32, next));
          write(to, pick(holders));
          logs = [log(to, 3, 32)];
        } else if (r < 0.7) {
          to = pick(pairs);
          const [t0, t1] = [pick(tokens), pick(tokens)];
          write(to, smallSlot(8), 28); // reserves
          write(t0, bytesOf(32, next));
          write(t0, pick(holders));
          write(t1, bytesOf(32, next));
          write(t1, pick(holders));
          logs = [log(t0, 3, 32), log(t1, 3, 32), log(to, 1, 64), log(to, 3, 128)];
        } else {
          to = pick(pools);
          const [t0, t1] = [pick(tokens), pick(tokens)];
          write(to, smallSlot(0), 28); // slot0
          write(to, smallSlot(1), 32); // fee growth 0
          write(to, smallSlot(2), 32); // fee growth 1
          write(to, smallSlot(4), 16); // liquidity
          for (let c = 0; c < 2 + ((next() * 3) | 0); c++) {
            const tick = bytesOf(32, next);
            for (let w = 0; w < 3; w++) {
              const s = tick.slice();
              s[31] = (s[31]! + w) & 0xff;
              write(to, s, 32);
            }
          }
          write(to, bytesOf(32, next), 32); // a tick bitmap word
          write(to, smallSlot(8), 32); // an observation
          write(t0, bytesOf(32, next));
          write(t0, pick(holders));
          write(t1, bytesOf(32, next));
          write(t1, pick(holders));
          logs = [log(t0, 3, 32), log(t1, 3, 32), log(to, 3, 160)];
        }
        const [t, rc] = sentOne(from, to, logs, r < 0.4 ? 52_000n : 130_000n);
        transactions.push(t);
        receipts.push(rc);
        if (next() < 0.02) {
          // A deployment: a contract account and its code.
          const created = bytesOf(20, next);
          const codeHash = bytesOf(32, next);
          setAccount(created, { nonce: 1n, balance: 0n, codeHash });
          code.push([codeHash, bytesOf(2_000 + ((next() * 10_000) | 0), next)]);
          for (let s = 0; s < 4; s++) write(created, smallSlot(s), 20);
        }
      }
    for (const vault of VAULTS) setAccount(vault, account(0));
    const diff: StateDiff = {
      accounts: [...accounts.values()],
      storage: [...storage.values()],
      wiped: [],
      code,
    };
    for (const [a] of diff.accounts) touchedAccounts.push(a);
    for (const [a, s] of diff.storage) touchedSlots.push([a, s]);
    return {
      kind: "flashblock",
      base,
      index,
      transactions,
      receipts,
      diff,
      gasUsed: 30_000_000n,
      blobGasUsed: 0n,
      logsBloom: new Uint8Array(256),
      receiptsRoot: bytesOf(32, next),
      transactionsRoot: bytesOf(32, next),
      // Base's wire message for /flashblocks is about this size per transaction.
      wireJson: "x".repeat(200 + transactions.length * 700),
      buildMs: 1,
      publishedAt: 1_700_000_000_000 + index * 200,
    };
  };

  return {
    block(number) {
      const base: PendingBase = {
        number,
        parentHash: bytesOf(32, next),
        timestamp: 1_700_000_000n + BigInt(number) * 2n,
        gasLimit: 60_000_000n,
        baseFeePerGas: 1_000_000n,
        coinbase: VAULTS[2]!,
        prevRandao: bytesOf(32, next),
        parentBeaconBlockRoot: bytesOf(32, next),
        extraData: new Uint8Array(0),
        blobGasPrice: 1n,
        excessBlobGas: 0n,
      };
      touchedAccounts.length = 0;
      touchedSlots.length = 0;
      return Array.from({ length: opts.flashblocks + 1 }, (_, i) => flashblockOf(base, i));
    },
    touched: { accounts: touchedAccounts, slots: touchedSlots },
    untouched: {
      accounts: Array.from({ length: 1_000 }, () => bytesOf(20, next)),
      slots: [
        // Slots of contracts the block wrote, and of ones it did not.
        ...Array.from({ length: 500 }, () => [pick(tokens), bytesOf(32, next)] as const),
        ...Array.from({ length: 500 }, () => [bytesOf(20, next), bytesOf(32, next)] as const),
      ],
    },
  };
}
