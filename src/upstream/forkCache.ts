// The datadir's copy of what was fetched from an upstream for a fork at block F (tables 24–34 of
// src/store/tables.ts). Only upstream answers enter it, keyed by chain id and F's hash, so local
// writes never pollute it and forks of another block or chain never see each other's values
// (foundry #1531, #15728). Writes are buffered and committed in one LMDB transaction per
// macrotask, not one per key; a value waiting for its commit is already served.
import type { AccountRecord } from "../chain/types.ts";
import type { Logger } from "../log/logger.ts";
import { decodeAccount, encodeAccount } from "../store/codec.ts";
import type { KvEnv, KvTable } from "../store/lmdb.ts";
import type { TableName } from "../store/tables.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";

/** The block a fork is pinned to. */
export type ForkPoint = {
  readonly chainId: bigint;
  readonly number: bigint;
  readonly hash: Uint8Array;
};

type CacheTable =
  | "upstreamAccounts"
  | "upstreamStorage"
  | "upstreamCode"
  | "upstreamBlocks"
  | "upstreamReceipts"
  | "upstreamCanonical"
  | "upstreamTransactions"
  | "upstreamTxReceipts"
  | "upstreamLogs"
  | "upstreamForkPoints"
  | "upstreamAnswers";

type Pending = { readonly table: CacheTable; readonly key: Uint8Array; readonly value: Uint8Array };

const utf8 = new TextEncoder();
const utf8Decoder = new TextDecoder();
const ABSENT = new Uint8Array(0);

function u64(out: Uint8Array, offset: number, n: bigint): void {
  new DataView(out.buffer, out.byteOffset, out.byteLength).setBigUint64(offset, n);
}

function concat(...parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function u64Bytes(n: bigint): Uint8Array {
  const out = new Uint8Array(8);
  u64(out, 0, n);
  return out;
}

export class ForkCache {
  readonly fork: ForkPoint;
  private readonly env: KvEnv;
  private readonly logger: Logger | undefined;
  /** chain id ‖ F: the prefix of every per-fork key. */
  private readonly forkPrefix: Uint8Array;
  /** chain id: the prefix of per-chain keys (blocks, receipts by hash). */
  private readonly chainPrefix: Uint8Array;
  private readonly tables = new Map<CacheTable, KvTable>();
  private readonly pending = new Map<string, Pending>();
  private flushScheduled = false;

  constructor(env: KvEnv, fork: ForkPoint, logger?: Logger) {
    this.env = env;
    this.fork = fork;
    this.logger = logger;
    this.chainPrefix = u64Bytes(fork.chainId);
    this.forkPrefix = concat(this.chainPrefix, fork.hash);
  }

  /** The block a fork at `number` of chain `chainId` was pinned to before, if any. */
  static forkPoint(env: KvEnv, chainId: bigint, number: bigint): Uint8Array | undefined {
    const v = env.table("upstreamForkPoints").get(concat(u64Bytes(chainId), u64Bytes(number)));
    return v === undefined ? undefined : new Uint8Array(v); // a plain copy, not lmdb's Buffer
  }

  /** Remembers F for its number (written at once: a start-up record, not a fetched value). */
  recordForkPoint(): void {
    if (this.env.readOnly) return;
    const key = concat(this.chainPrefix, u64Bytes(this.fork.number));
    this.env.writeAtomically(() => this.env.table("upstreamForkPoints").put(key, this.fork.hash));
  }

  // --- state at F ---

  /** undefined: not fetched yet; null: fetched, absent (no nonce, balance or code). */
  account(address: Uint8Array): AccountRecord | null | undefined {
    const v = this.get("upstreamAccounts", concat(this.forkPrefix, address));
    if (v === undefined) return undefined;
    const record = decodeAccount(v);
    return record.nonce === 0n && record.balance === 0n && record.codeHash === undefined
      ? null
      : record;
  }

  putAccount(address: Uint8Array, record: AccountRecord | null): void {
    const value = encodeAccount(record ?? { nonce: 0n, balance: 0n, codeHash: undefined });
    this.put("upstreamAccounts", concat(this.forkPrefix, address), value);
  }

  /** A slot at F, leading zeros trimmed (empty = zero); undefined: not fetched yet. */
  storage(address: Uint8Array, slot: Uint8Array): Uint8Array | undefined {
    return this.get("upstreamStorage", concat(this.forkPrefix, address, slot));
  }

  putStorage(address: Uint8Array, slot: Uint8Array, value: Uint8Array): void {
    this.put("upstreamStorage", concat(this.forkPrefix, address, slot), value);
  }

  code(codeHash: Uint8Array): Uint8Array | undefined {
    return this.get("upstreamCode", codeHash);
  }

  putCode(codeHash: Uint8Array, code: Uint8Array): void {
    this.put("upstreamCode", codeHash, code);
  }

  // --- history at or below F (JSON as the upstream sent it) ---

  block(hash: Uint8Array): unknown {
    return this.json("upstreamBlocks", concat(this.chainPrefix, hash));
  }

  putBlock(hash: Uint8Array, block: unknown): void {
    this.putJson("upstreamBlocks", concat(this.chainPrefix, hash), block);
  }

  receipts(blockHash: Uint8Array): unknown {
    return this.json("upstreamReceipts", concat(this.chainPrefix, blockHash));
  }

  putReceipts(blockHash: Uint8Array, receipts: unknown): void {
    this.putJson("upstreamReceipts", concat(this.chainPrefix, blockHash), receipts);
  }

  /** The hash of F's ancestor at `number` (F itself included), if known. */
  canonical(number: bigint): Uint8Array | undefined {
    return this.get("upstreamCanonical", concat(this.forkPrefix, u64Bytes(number)));
  }

  putCanonical(number: bigint, hash: Uint8Array): void {
    this.put("upstreamCanonical", concat(this.forkPrefix, u64Bytes(number)), hash);
  }

  /** undefined: not asked yet; null: not in a block at or below F. */
  transaction(hash: Uint8Array): unknown {
    return this.json("upstreamTransactions", concat(this.forkPrefix, hash));
  }

  putTransaction(hash: Uint8Array, tx: unknown): void {
    this.putJson("upstreamTransactions", concat(this.forkPrefix, hash), tx);
  }

  /** undefined: not asked yet; null: not in a block at or below F. */
  txReceipt(hash: Uint8Array): unknown {
    return this.json("upstreamTxReceipts", concat(this.forkPrefix, hash));
  }

  putTxReceipt(hash: Uint8Array, receipt: unknown): void {
    this.putJson("upstreamTxReceipts", concat(this.forkPrefix, hash), receipt);
  }

  /** The logs of a filter over a range at or below F; `filterHash` = keccak256 of its JSON. */
  logs(filterHash: Uint8Array): unknown {
    return this.json("upstreamLogs", concat(this.forkPrefix, filterHash));
  }

  putLogs(filterHash: Uint8Array, logs: unknown): void {
    this.putJson("upstreamLogs", concat(this.forkPrefix, filterHash), logs);
  }

  /** A forwarded call's answer (`key`: keccak256 of the call pinned by block hash); any chain F. */
  answer(key: Uint8Array): unknown {
    return this.json("upstreamAnswers", concat(this.chainPrefix, key));
  }

  putAnswer(key: Uint8Array, answer: unknown): void {
    this.putJson("upstreamAnswers", concat(this.chainPrefix, key), answer);
  }

  /** Commits what is buffered now (normally done after each macrotask that fetched something). */
  flush(): void {
    this.flushScheduled = false;
    if (this.pending.size === 0 || this.env.readOnly || !this.env.isOpen()) return;
    const writes = [...this.pending.values()];
    try {
      this.env.writeAtomically(() => {
        for (const w of writes) this.table(w.table).put(w.key, w.value);
      });
    } catch (e) {
      // The values stay in memory and keep answering; only their persistence is lost.
      this.logger?.warn({ err: e }, "could not write the fork cache");
      return;
    }
    for (const w of writes) this.pending.delete(pendingKey(w.table, w.key));
  }

  private table(name: CacheTable): KvTable {
    let t = this.tables.get(name);
    if (t === undefined) {
      t = this.env.table(name satisfies TableName);
      this.tables.set(name, t);
    }
    return t;
  }

  private get(table: CacheTable, key: Uint8Array): Uint8Array | undefined {
    const buffered = this.pending.get(pendingKey(table, key));
    if (buffered !== undefined) return buffered.value;
    const v = this.table(table).get(key);
    return v === undefined ? undefined : new Uint8Array(v); // a plain copy, not lmdb's Buffer
  }

  private put(table: CacheTable, key: Uint8Array, value: Uint8Array): void {
    this.pending.set(pendingKey(table, key), { table, key, value });
    if (this.flushScheduled || this.env.readOnly) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private json(table: CacheTable, key: Uint8Array): unknown {
    const v = this.get(table, key);
    if (v === undefined) return undefined;
    return v.length === 0 ? null : JSON.parse(utf8Decoder.decode(v));
  }

  private putJson(table: CacheTable, key: Uint8Array, value: unknown): void {
    this.put(table, key, value === null ? ABSENT : utf8.encode(JSON.stringify(value)));
  }
}

function pendingKey(table: CacheTable, key: Uint8Array): string {
  return `${table}:${bytesToUnprefixedHex(key)}`;
}
