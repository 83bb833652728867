// The archive-scale generator's model: a deterministic synthetic chain. Which slots and accounts
// block N changes is a pure function of (seed, N), so a resumed or measure-only run rebuilds the
// model's current state, first-change index and sample log by replaying the draws (no writes).
import type {
  AccountChange,
  AccountRecord,
  BlockWrite,
  StorageChange,
} from "../../src/chain/types.ts";
import { keccak256 } from "../../src/util/crypto.ts";

export type ScaleParams = {
  readonly changesPerBlock: number;
  readonly txsPerBlock: number;
  readonly seed: number;
};

export type Tier = {
  readonly name: "hot" | "warm" | "cold";
  /** First global slot index of the tier. */
  readonly first: number;
  readonly size: number;
  /** Share of all storage changes (and of the reads) that land in this tier, uniform within it. */
  readonly share: number;
};

/** Hot: a few contracts' busiest slots (pool state, big balances); cold: the long tail. */
export const TIERS: readonly Tier[] = [
  { name: "hot", first: 0, size: 1_000, share: 0.4 },
  { name: "warm", first: 1_000, size: 100_000, share: 0.3 },
  { name: "cold", first: 101_000, size: 5_000_000, share: 0.3 },
];
export const SLOT_POPULATION = 5_101_000;
const SLOTS_PER_CONTRACT = 100;
const COLD_CONTRACTS = 50_000;
/** EOAs that send and receive; account 0 is the coinbase. */
const ACCOUNTS = 200_000;
/** Share of storage changes that clear a slot (when it is set). */
const CLEAR_SHARE = 0.05;
/** Change i of block N writes value counter N * 64 + i + 1, so at most 63 changes a block. */
export const MAX_CHANGES_PER_BLOCK = 63;
const EMPTY = new Uint8Array(0);
const GAS_PRICE = 1_000_000_000n;
const FUNDING = 1_000_000_000_000_000_000_000n;
const HEADER_BYTES = 256;
/** RLP [[], []]: the generator's blocks carry no transaction bodies. */
const BODY_RLP = Uint8Array.of(0xc2, 0xc0, 0xc0);

/** murmur3 fmix32: a bijection on u32, used to derive keys and values. */
export function mix32(x: number): number {
  let h = x >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** mulberry32: a small seeded PRNG, floats in [0, 1). */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function fillWords(out: Uint8Array, words: number, tag: number, index: number): void {
  for (let k = 0; k < words; k++) {
    const w = mix32(mix32(tag ^ mix32(index)) + k);
    out[k * 4] = w >>> 24;
    out[k * 4 + 1] = (w >>> 16) & 0xff;
    out[k * 4 + 2] = (w >>> 8) & 0xff;
    out[k * 4 + 3] = w & 0xff;
  }
}

function writeU32(out: Uint8Array, offset: number, n: number): void {
  out[offset] = n >>> 24;
  out[offset + 1] = (n >>> 16) & 0xff;
  out[offset + 2] = (n >>> 8) & 0xff;
  out[offset + 3] = n & 0xff;
}

export function tierOf(g: number): Tier {
  return g < TIERS[1]!.first ? TIERS[0]! : g < TIERS[2]!.first ? TIERS[1]! : TIERS[2]!;
}

/** Draws a global slot index with the write skew of TIERS. */
export function drawSlot(next: () => number): number {
  const r = next();
  let acc = 0;
  for (const tier of TIERS) {
    acc += tier.share;
    if (r < acc) return tier.first + Math.floor(next() * tier.size);
  }
  const last = TIERS[TIERS.length - 1]!;
  return last.first + Math.floor(next() * last.size);
}

/** Hot and warm slots are grouped 100 per contract; a cold contract's slots are strided. */
function contractOf(g: number): number {
  if (g < TIERS[2]!.first) return Math.floor(g / SLOTS_PER_CONTRACT);
  return (
    Math.floor(TIERS[2]!.first / SLOTS_PER_CONTRACT) + ((g - TIERS[2]!.first) % COLD_CONTRACTS)
  );
}

const contractAddresses = new Map<number, Uint8Array>();

export function slotAddress(g: number): Uint8Array {
  const c = contractOf(g);
  let a = contractAddresses.get(c);
  if (a === undefined) {
    a = new Uint8Array(20);
    fillWords(a, 5, 0xc0de, c);
    contractAddresses.set(c, a);
  }
  return a;
}

/** Storage keys look hashed (mapping entries), so they spread over the B-tree like real ones. */
export function slotKey(g: number): Uint8Array {
  const out = new Uint8Array(32);
  fillWords(out, 8, 0x510f, g);
  return out;
}

export function accountAddress(i: number): Uint8Array {
  const out = new Uint8Array(20);
  fillWords(out, 5, 0xe0a, i);
  return out;
}

/** A value of 5..32 bytes, no leading zero, ending in the counter (0 = cleared = empty). */
export function valueBytes(counter: number): Uint8Array {
  if (counter === 0) return EMPTY;
  const len = 5 + (mix32(counter ^ 0x5bd1e995) % 28);
  const out = new Uint8Array(len);
  const filler = new Uint8Array(28);
  fillWords(filler, 7, 0x7a1, counter);
  out.set(filler.subarray(0, len - 4), 0);
  out[0] = (out[0]! % 255) + 1;
  writeU32(out, len - 4, counter);
  return out;
}

/** A storage change as the model sees it: global slot index and value counters. */
export type SlotChange = { readonly g: number; readonly before: number; readonly after: number };
type AccountTouch = {
  readonly index: number;
  before: AccountRecord | undefined;
  after: AccountRecord;
};

/** Slots whose every change is logged for the correctness check: ~6,000 across the tiers. */
export function isSampled(g: number): boolean {
  if (g < 20) return true;
  if (g < TIERS[2]!.first) return g >= TIERS[1]!.first && (g - TIERS[1]!.first) % 100 === 0;
  return (g - TIERS[2]!.first) % 1000 === 0;
}

export class ScaleModel {
  readonly params: ScaleParams;
  /** Current value counter of every slot (0 = zero). */
  readonly current = new Uint32Array(SLOT_POPULATION);
  /** Block of each slot's first change (0 = never changed). */
  readonly firstChange = new Uint32Array(SLOT_POPULATION);
  /** Sampled slot → flat [block, counter after, block, counter after, ...]. */
  readonly log = new Map<number, number[]>();
  private readonly nonces = new Uint32Array(ACCOUNTS + 1);
  private readonly balances: bigint[] = new Array<bigint>(ACCOUNTS + 1).fill(0n);
  private readonly exists = new Uint8Array(ACCOUNTS + 1);
  storageChanges = 0;
  accountChanges = 0;

  constructor(params: ScaleParams) {
    if (params.changesPerBlock < 1 || params.changesPerBlock > MAX_CHANGES_PER_BLOCK)
      throw new Error(`--changes-per-block must be 1..${MAX_CHANGES_PER_BLOCK}`);
    this.params = params;
  }

  /** Applies block `n`'s draws to the model and returns what changed. Block 0 is empty genesis. */
  advance(n: number): { slots: SlotChange[]; accounts: AccountTouch[]; txs: [number, number][] } {
    if (n === 0) return { slots: [], accounts: [], txs: [] };
    const next = rng(mix32(this.params.seed ^ mix32(n)));
    const seen = new Set<number>();
    const slots: SlotChange[] = [];
    for (let i = 0; i < this.params.changesPerBlock; i++) {
      let g = drawSlot(next);
      while (seen.has(g)) g = drawSlot(next);
      seen.add(g);
      const clear = next() < CLEAR_SHARE;
      const before = this.current[g]!;
      // Clearing an empty slot is no change; it writes a value instead.
      const after = clear && before !== 0 ? 0 : n * 64 + i + 1;
      this.current[g] = after;
      if (this.firstChange[g] === 0) this.firstChange[g] = n;
      if (isSampled(g)) {
        let entries = this.log.get(g);
        if (entries === undefined) {
          entries = [];
          this.log.set(g, entries);
        }
        entries.push(n, after);
      }
      slots.push({ g, before, after });
    }
    const touched = new Map<number, AccountTouch>();
    const touch = (index: number, update: (a: AccountRecord) => AccountRecord) => {
      let t = touched.get(index);
      if (t === undefined) {
        const before = this.account(index);
        t = { index, before, after: before ?? { nonce: 0n, balance: 0n, codeHash: undefined } };
        touched.set(index, t);
      }
      t.after = update(t.after);
      this.nonces[index] = Number(t.after.nonce);
      this.balances[index] = t.after.balance;
      this.exists[index] = 1;
    };
    const txs: [number, number][] = [];
    for (let i = 0; i < this.params.txsPerBlock; i++) {
      const sender = 1 + Math.floor(next() * ACCOUNTS);
      const recipient = 1 + Math.floor(next() * ACCOUNTS);
      const value = BigInt(1 + Math.floor(next() * 1_000_000)) * GAS_PRICE;
      const fee = 21_000n * GAS_PRICE;
      txs.push([sender, recipient]);
      touch(sender, (a) => {
        const balance = a.balance < value + fee ? a.balance + FUNDING : a.balance;
        return { ...a, nonce: a.nonce + 1n, balance: balance - value - fee };
      });
      touch(recipient, (a) => ({ ...a, balance: a.balance + value }));
      touch(0, (a) => ({ ...a, balance: a.balance + fee }));
    }
    this.storageChanges += slots.length;
    this.accountChanges += touched.size;
    return { slots, accounts: [...touched.values()], txs };
  }

  account(index: number): AccountRecord | undefined {
    if (this.exists[index] === 0) return undefined;
    return {
      nonce: BigInt(this.nonces[index]!),
      balance: this.balances[index]!,
      codeHash: undefined,
    };
  }

  /** Value counter of sampled slot `g` at the end of block `n`, from the log. */
  loggedValueAt(g: number, n: number): number {
    const entries = this.log.get(g) ?? [];
    let value = 0;
    for (let i = 0; i < entries.length && entries[i]! <= n; i += 2) value = entries[i + 1]!;
    return value;
  }

  /** Builds the block write for block `n` (advancing the model) on top of `parentHash`. */
  block(n: number, parentHash: Uint8Array): BlockWrite {
    const { slots, accounts, txs } = this.advance(n);
    const timestamp = 1_700_000_000n + BigInt(n) * 2n;
    const headerRlp = new Uint8Array(HEADER_BYTES);
    fillWords(headerRlp, HEADER_BYTES / 4, 0x4ead, n);
    headerRlp.set(parentHash, 0);
    writeU32(headerRlp, 32, n);
    const hash = keccak256(headerRlp);
    const transactionHashes: Uint8Array[] = [];
    const tx = new Uint8Array(36);
    tx.set(hash, 0);
    for (let i = 0; i < txs.length; i++) {
      writeU32(tx, 32, i);
      transactionHashes.push(keccak256(tx));
    }
    const storageChanges: StorageChange[] = slots.map((c) => ({
      address: slotAddress(c.g),
      slot: slotKey(c.g),
      before: valueBytes(c.before),
      after: valueBytes(c.after),
    }));
    const accountChanges: AccountChange[] = accounts.map((a) => ({
      address: accountAddress(a.index),
      before: a.before,
      after: a.after,
    }));
    return {
      number: n,
      hash,
      headerRlp,
      bodyRlp: BODY_RLP,
      timestamp,
      transactionHashes,
      // Tiny receipts: no logs, an empty bloom.
      receipts: transactionHashes.map((h, i) => ({
        type: 2,
        status: 1,
        root: undefined,
        cumulativeGasUsed: 21_000n * BigInt(i + 1),
        gasUsed: 21_000n,
        effectiveGasPrice: GAS_PRICE,
        from: accountAddress(txs[i]![0]),
        to: accountAddress(txs[i]![1]),
        contractAddress: undefined,
        transactionHash: h,
        logsBloom: EMPTY,
        logs: [],
        blobGasUsed: undefined,
        blobGasPrice: undefined,
      })),
      accountChanges,
      storageChanges,
      code: new Map(),
      trieNodes: new Map(),
    };
  }
}
