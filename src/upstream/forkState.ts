// State at the fork block F, fetched lazily from the upstream with standard methods only, pinned
// to F by hash (EIP-1898): eth_getBalance + eth_getTransactionCount + eth_getCode per account,
// eth_getStorageAt per slot. Concurrent misses of one key are one fetch; misses issued in one
// macrotask leave as one JSON-RPC batch (the client's doing); what was fetched stays in the
// datadir (forkCache.ts), so nothing is fetched twice for this chain and F.
import type { AccountRecord } from "../chain/types.ts";
import type { Logger } from "../log/logger.ts";
import type { UpstreamState } from "../services/upstreamState.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToUnprefixedHex, padLeft, trimLeadingZeros } from "../util/hex.ts";
import { notArchiveReason } from "./classify.ts";
import type { UpstreamClient } from "./client.ts";
import { UpstreamCallError, UpstreamNotArchiveError } from "./errors.ts";
import { ForkCache, type ForkPoint } from "./forkCache.ts";
import { atBlockHash, hex, parseData, parseQuantity } from "./json.ts";

/** An account at F with its code (empty for none). */
export type ForkAccount = AccountRecord & { readonly code: Uint8Array };

export type ForkStateStats = {
  /** Accounts and slots fetched from the upstream (each once). */
  readonly accountFetches: number;
  readonly storageFetches: number;
  /** Reads answered by the cache. */
  readonly hits: number;
};

/** The upstream's state at F (services/upstreamState.ts), with what this implementation adds. */
export type ForkState = Omit<UpstreamState, "account"> & {
  readonly fork: ForkPoint;
  readonly cache: ForkCache;
  /** The account at F with its code; undefined when absent (no nonce, balance or code). */
  account(address: Uint8Array): Promise<ForkAccount | undefined>;
  stats(): ForkStateStats;
};

export type ForkStateOptions = {
  readonly client: UpstreamClient;
  readonly env: KvEnv;
  readonly fork: ForkPoint;
  readonly logger?: Logger;
  /**
   * One read's whole budget, retries included: a call waiting on state that is not cached fails
   * within it while the upstream is down (default 10 s; the client's own default is longer).
   */
  readonly readDeadlineMs?: number;
};

export const DEFAULT_READ_DEADLINE_MS = 10_000;

export function createForkState(opts: ForkStateOptions): ForkState {
  const { client, fork } = opts;
  const cache = new ForkCache(opts.env, fork, opts.logger);
  const callOpts = { deadlineMs: opts.readDeadlineMs ?? DEFAULT_READ_DEADLINE_MS };
  const at = atBlockHash(fork.hash);
  const host = client.host;
  const accountsInFlight = new Map<string, Promise<AccountRecord | null>>();
  const slotsInFlight = new Map<string, Promise<Uint8Array>>();
  const counters = { accountFetches: 0, storageFetches: 0, hits: 0 };

  /** A missing-state answer at F becomes UpstreamNotArchiveError; the rest pass unchanged. */
  function explain(e: unknown): unknown {
    if (!(e instanceof UpstreamCallError)) return e;
    const reason = notArchiveReason({ code: e.rpcCode, message: e.rpcMessage });
    return reason === undefined ? e : notArchive(host, fork, reason, e);
  }

  async function fetchAccount(address: Uint8Array): Promise<AccountRecord | null> {
    counters.accountFetches++;
    const a = hex(address);
    const [balance, nonce, code] = await Promise.all([
      client.call("eth_getBalance", [a, at], callOpts),
      client.call("eth_getTransactionCount", [a, at], callOpts),
      client.call("eth_getCode", [a, at], callOpts),
    ]).catch((e: unknown) => {
      throw explain(e);
    });
    const bytecode = parseData(host, "eth_getCode", code);
    const record: AccountRecord = {
      nonce: parseQuantity(host, "eth_getTransactionCount", nonce),
      balance: parseQuantity(host, "eth_getBalance", balance),
      codeHash: bytecode.length === 0 ? undefined : keccak256(bytecode),
    };
    if (record.codeHash !== undefined) cache.putCode(record.codeHash, bytecode);
    const absent = record.nonce === 0n && record.balance === 0n && record.codeHash === undefined;
    cache.putAccount(address, absent ? null : record);
    return absent ? null : record;
  }

  async function accountRecord(address: Uint8Array): Promise<AccountRecord | null> {
    const cached = cache.account(address);
    if (cached !== undefined) {
      counters.hits++;
      return cached;
    }
    const key = bytesToUnprefixedHex(address);
    let p = accountsInFlight.get(key);
    if (p === undefined) {
      p = fetchAccount(address);
      accountsInFlight.set(key, p);
      const forget = () => accountsInFlight.delete(key);
      p.then(forget, forget);
    }
    return p;
  }

  async function fetchSlot(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    counters.storageFetches++;
    let v: unknown;
    try {
      v = await client.call("eth_getStorageAt", [hex(address), hex(slot), at], callOpts);
    } catch (e) {
      throw explain(e);
    }
    // geth sends 32 bytes; some nodes send the shortest form ("0x0").
    const raw = typeof v === "string" && v.length % 2 === 1 ? `0x0${v.slice(2)}` : v;
    const value = trimLeadingZeros(padLeft(parseData(host, "eth_getStorageAt", raw), 32));
    const owned = Uint8Array.from(value);
    cache.putStorage(address, slot, owned);
    return owned;
  }

  async function storage(address: Uint8Array, slot: Uint8Array): Promise<Uint8Array> {
    const word = padLeft(slot, 32);
    const cached = cache.storage(address, word);
    if (cached !== undefined) {
      counters.hits++;
      return cached;
    }
    const key = bytesToUnprefixedHex(address) + bytesToUnprefixedHex(word);
    let p = slotsInFlight.get(key);
    if (p === undefined) {
      p = fetchSlot(address, word);
      slotsInFlight.set(key, p);
      const forget = () => slotsInFlight.delete(key);
      p.then(forget, forget);
    }
    return p;
  }

  async function codeOf(record: AccountRecord | null, address: Uint8Array): Promise<Uint8Array> {
    if (record?.codeHash === undefined) return new Uint8Array(0);
    const code = cache.code(record.codeHash);
    if (code !== undefined) return code;
    // The account row outlived its code row (a cache written by hand): fetch the code again.
    const fresh = await fetchAccount(address);
    return (fresh?.codeHash && cache.code(fresh.codeHash)) || new Uint8Array(0);
  }

  return {
    fork,
    cache,
    async account(address) {
      const record = await accountRecord(address);
      if (record === null) return undefined;
      return { ...record, code: await codeOf(record, address) };
    },
    storage,
    async code(address) {
      return codeOf(await accountRecord(address), address);
    },
    codeByHash: (codeHash) => cache.code(codeHash),
    peekAccount: (address) => cache.account(address),
    peekStorage: (address, slot) => cache.storage(address, padLeft(slot, 32)),
    async prefetch(accounts, slots) {
      await Promise.allSettled([
        ...accounts.map((a) => accountRecord(a)),
        ...slots.map(([a, s]) => storage(a, s)),
      ]);
    },
    stats: () => ({ ...counters }),
  };
}

export function notArchive(
  host: string,
  fork: ForkPoint,
  reason: string,
  cause?: unknown,
): UpstreamNotArchiveError {
  return new UpstreamNotArchiveError(
    host,
    `the upstream at ${host} has no state for block ${fork.number} (${hex(fork.hash)}) (${reason}): use an archive node, or a fork block within its state window`,
    cause === undefined ? undefined : { cause },
  );
}
