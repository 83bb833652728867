// The upstream's history at or below the fork block F, through the datadir cache: what cannot
// change is fetched once (foundry #1759, #4564). Answers are the upstream's JSON as sent, so
// chain-specific fields (OP-stack l1Fee, l1GasUsed, depositNonce, deposit transactions' sourceHash,
// mint, isSystemTx) pass through untouched (foundry #12345, #8940). Blocks above F are the fork's
// own and never asked for here.
import type { Logger } from "../log/logger.ts";
import type { KvEnv } from "../store/lmdb.ts";
import { isMethodUnavailable } from "./classify.ts";
import type { UpstreamClient } from "./client.ts";
import { UpstreamCallError, UpstreamProtocolError } from "./errors.ts";
import { ForkCache, type ForkPoint } from "./forkCache.ts";
import {
  blockId,
  hex,
  isObject,
  parseQuantity,
  type RpcBlock,
  type RpcObject,
  withTxHashes,
} from "./json.ts";
import { type LogFilter, type LogsOptions, queryLogs } from "./logs.ts";

export type ForkHistory = {
  readonly fork: ForkPoint;
  /** F's ancestor at `number` (null above F, or when the upstream has no such block). */
  blockByNumber(number: bigint, fullTx: boolean): Promise<RpcBlock | null>;
  /** A block by hash, if its number is at or below F. */
  blockByHash(hash: Uint8Array, fullTx: boolean): Promise<RpcBlock | null>;
  /** Every receipt of a block at or below F (null when there is no such block). */
  blockReceipts(blockHash: Uint8Array): Promise<RpcObject[] | null>;
  /** A transaction in a block at or below F; null otherwise. */
  transaction(hash: Uint8Array): Promise<RpcObject | null>;
  /** A receipt of a transaction in a block at or below F; null otherwise. */
  receipt(hash: Uint8Array): Promise<RpcObject | null>;
  /** eth_getLogs over a range, its upper end clamped to F; chunked to the upstream's limit. */
  logs(filter: LogFilter): Promise<RpcObject[]>;
};

export type ForkHistoryOptions = {
  readonly client: UpstreamClient;
  readonly env: KvEnv;
  readonly fork: ForkPoint;
  readonly logger?: Logger;
  /** One read's budget, retries included (see ForkStateOptions.readDeadlineMs). */
  readonly readDeadlineMs?: number;
  readonly logs?: Partial<LogsOptions>;
};

export function createForkHistory(opts: ForkHistoryOptions): ForkHistory {
  const { client, fork } = opts;
  const host = client.host;
  const cache = new ForkCache(opts.env, fork, opts.logger);
  // F is served by its hash: an upstream that reorged past F cannot answer another block for it.
  if (cache.canonical(fork.number) === undefined) cache.putCanonical(fork.number, fork.hash);
  const callOpts = { deadlineMs: opts.readDeadlineMs ?? 10_000 };
  /** Once the upstream refused eth_getBlockReceipts, receipts come one per transaction. */
  let blockReceiptsRefused = false;
  const logsState = { chunk: opts.logs?.initialChunk ?? 2_000 };

  function isAtOrBelowFork(number: bigint): boolean {
    return number <= fork.number;
  }

  async function fullBlockByHash(hash: Uint8Array): Promise<RpcBlock | null> {
    const cached = cache.block(hash);
    if (cached !== undefined) return cached as RpcBlock;
    const block = await client.blockByHash(hash, true, callOpts);
    if (block === null) return null;
    const id = blockId(host, block);
    // A block above F is the upstream's future, not part of this fork: not cached, not served.
    if (!isAtOrBelowFork(id.number)) return null;
    cache.putBlock(id.hash, block);
    return block;
  }

  async function fullBlockByNumber(number: bigint): Promise<RpcBlock | null> {
    if (number < 0n || !isAtOrBelowFork(number)) return null;
    const known = cache.canonical(number);
    if (known !== undefined) return fullBlockByHash(known);
    const block = await client.blockByNumber(number, true, callOpts);
    if (block === null) return null;
    const id = blockId(host, block);
    if (id.number !== number)
      throw new UpstreamProtocolError(
        host,
        `the upstream at ${host} answered eth_getBlockByNumber(${number}) with block ${id.number}`,
      );
    cache.putCanonical(number, id.hash);
    cache.putBlock(id.hash, block);
    return block;
  }

  async function receiptsOneByOne(block: RpcBlock): Promise<RpcObject[]> {
    const hashes = block.transactions.map((tx) => (typeof tx === "string" ? tx : tx.hash));
    const receipts = await Promise.all(
      hashes.map((h) => client.call("eth_getTransactionReceipt", [h], callOpts)),
    );
    return receipts.map((r, i) => {
      if (!isObject(r))
        throw new UpstreamProtocolError(
          host,
          `the upstream at ${host} has no receipt for transaction ${String(hashes[i])} of block ${block.number}`,
        );
      return r;
    });
  }

  async function blockReceipts(blockHash: Uint8Array): Promise<RpcObject[] | null> {
    const cached = cache.receipts(blockHash);
    if (Array.isArray(cached)) return cached as RpcObject[];
    const block = await fullBlockByHash(blockHash);
    if (block === null) return null;
    let receipts: RpcObject[] | undefined;
    if (!blockReceiptsRefused) {
      try {
        const v = await client.call("eth_getBlockReceipts", [block.hash], callOpts);
        if (!Array.isArray(v) || !v.every(isObject))
          throw new UpstreamProtocolError(
            host,
            `the upstream at ${host} answered eth_getBlockReceipts(${block.hash}) with ${JSON.stringify(v)?.slice(0, 80)}`,
          );
        receipts = v;
      } catch (e) {
        // Base's public RPC answers 403 -32001 "rpc method is not whitelisted": fall back.
        if (
          !(
            e instanceof UpstreamCallError &&
            isMethodUnavailable({ code: e.rpcCode, message: e.rpcMessage })
          )
        )
          throw e;
        blockReceiptsRefused = true;
        opts.logger?.info(
          { upstream: host, reason: e.rpcMessage },
          "the upstream refuses eth_getBlockReceipts: fetching receipts one per transaction",
        );
      }
    }
    receipts ??= await receiptsOneByOne(block);
    cache.putReceipts(blockHash, receipts);
    return receipts;
  }

  /** Whether a tx or receipt answer lies in a block at or below F. */
  function inForkRange(v: unknown): v is RpcObject {
    if (!isObject(v) || v.blockNumber === null || v.blockNumber === undefined) return false;
    return isAtOrBelowFork(parseQuantity(host, "a blockNumber", v.blockNumber));
  }

  async function byTxHash(
    hash: Uint8Array,
    method: "eth_getTransactionByHash" | "eth_getTransactionReceipt",
  ): Promise<RpcObject | null> {
    const tx = method === "eth_getTransactionByHash";
    const cached = tx ? cache.transaction(hash) : cache.txReceipt(hash);
    if (cached !== undefined) return cached as RpcObject | null;
    const v = await client.call(method, [hex(hash)], callOpts);
    // Pending upstream, or mined after F: absent from this fork, and it stays so.
    const answer = inForkRange(v) ? v : null;
    if (tx) cache.putTransaction(hash, answer);
    else cache.putTxReceipt(hash, answer);
    return answer;
  }

  return {
    fork,
    async blockByNumber(number, fullTx) {
      const block = await fullBlockByNumber(number);
      return block === null || fullTx ? block : withTxHashes(block);
    },
    async blockByHash(hash, fullTx) {
      const block = await fullBlockByHash(hash);
      return block === null || fullTx ? block : withTxHashes(block);
    },
    blockReceipts,
    transaction: (hash) => byTxHash(hash, "eth_getTransactionByHash"),
    receipt: (hash) => byTxHash(hash, "eth_getTransactionReceipt"),
    logs: (filter) =>
      queryLogs({ client, cache, host, callOpts, state: logsState, logger: opts.logger }, filter),
  };
}
