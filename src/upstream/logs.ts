// eth_getLogs at or below the fork block, chunked to the upstream's range limit (foundry #1827:
// Alchemy 2K blocks / 10K logs, Infura 10K, QuickNode 10K, Base's "block range too large"…).
// A chunk the upstream refuses as too wide (or too full) is halved, or cut to the size the
// upstream names, and the working size is remembered for the next query. Each chunk's answer is
// cached: logs at or below F never change.

import type { Logger } from "../log/logger.ts";
import { keccak256 } from "../util/crypto.ts";
import type { CallOptions } from "./calls.ts";
import { logRangeLimit } from "./classify.ts";
import type { UpstreamClient } from "./client.ts";
import { UpstreamCallError, UpstreamProtocolError } from "./errors.ts";
import type { ForkCache } from "./forkCache.ts";
import { hex, hexQuantity, isObject, type RpcObject } from "./json.ts";

/** A log filter over a block range, parsed (as the RPC layer's filter criteria are). */
export type LogFilter = {
  readonly fromBlock: bigint;
  readonly toBlock: bigint;
  /** Any of these emitters; undefined or empty: any. */
  readonly addresses?: readonly Uint8Array[];
  /** Per position, one of these topics; undefined: any. */
  readonly topics?: readonly (readonly Uint8Array[] | undefined)[];
};

export type LogsOptions = {
  /** The first chunk size tried, in blocks (Alchemy's limit: 2,000). */
  readonly initialChunk: number;
};

export type LogsContext = {
  readonly client: UpstreamClient;
  readonly cache: ForkCache;
  readonly host: string;
  readonly callOpts: CallOptions;
  /** The working chunk size, shared by the fork's queries (remembered once learnt). */
  readonly state: { chunk: number };
  readonly logger: Logger | undefined;
};

const utf8 = new TextEncoder();

/** The filter as the upstream takes it, without its range. */
function wireFilter(filter: LogFilter): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (filter.addresses !== undefined && filter.addresses.length > 0)
    out.address = filter.addresses.map(hex);
  if (filter.topics !== undefined && filter.topics.length > 0)
    out.topics = filter.topics.map((t) => (t === undefined ? null : t.map(hex)));
  return out;
}

export async function queryLogs(ctx: LogsContext, filter: LogFilter): Promise<RpcObject[]> {
  const fork = ctx.cache.fork.number;
  let to = filter.toBlock;
  if (to > fork) to = fork;
  if (filter.fromBlock > to || filter.fromBlock < 0n) return [];
  const base = wireFilter(filter);
  const out: RpcObject[] = [];
  let from = filter.fromBlock;
  while (from <= to) {
    const size = BigInt(ctx.state.chunk);
    const end = from + size - 1n < to ? from + size - 1n : to;
    const logs = await chunk(ctx, base, from, end);
    if (logs === undefined) continue; // the chunk size shrank: same start, smaller chunk
    out.push(...logs);
    from = end + 1n;
  }
  return out;
}

/** One chunk's logs, or undefined when the upstream refused its size (the size is cut). */
async function chunk(
  ctx: LogsContext,
  base: Record<string, unknown>,
  from: bigint,
  to: bigint,
): Promise<RpcObject[] | undefined> {
  const query = { ...base, fromBlock: hexQuantity(from), toBlock: hexQuantity(to) };
  const key = keccak256(utf8.encode(JSON.stringify(query)));
  const cached = ctx.cache.logs(key);
  if (Array.isArray(cached)) return cached as RpcObject[];
  let v: unknown;
  try {
    v = await ctx.client.call("eth_getLogs", [query], ctx.callOpts);
  } catch (e) {
    const limit =
      e instanceof UpstreamCallError
        ? logRangeLimit({ code: e.rpcCode, message: e.rpcMessage })
        : undefined;
    const span = Number(to - from + 1n);
    if (limit === undefined || span <= 1) throw e;
    const next = Math.max(1, Math.min(limit.suggested ?? Math.floor(span / 2), span - 1));
    ctx.state.chunk = next;
    ctx.logger?.info(
      { upstream: ctx.host, blocks: next, reason: e instanceof Error ? e.message : String(e) },
      "the upstream limits eth_getLogs ranges: querying in smaller chunks",
    );
    return undefined;
  }
  if (!Array.isArray(v) || !v.every(isObject))
    throw new UpstreamProtocolError(
      ctx.host,
      `the upstream at ${ctx.host} answered eth_getLogs with ${JSON.stringify(v)?.slice(0, 80)}`,
    );
  ctx.cache.putLogs(key, v);
  return v;
}
