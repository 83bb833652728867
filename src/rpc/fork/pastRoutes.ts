// A forked chain's past is its upstream's: calls about a block at or below the fork block F go
// there, through the datadir's cache (what cannot change is fetched once). As anvil does:
// blocks, receipts, transactions, uncles, traces and proofs at or below F, and state at blocks
// below F (state at F itself is the chain's own: the upstream's plus the accounts it funded);
// lookups by transaction hash try the chain first; eth_getLogs ranges across F are split.
import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import { RpcError, ServerError } from "../../services/errors.ts";
import type { FilterCriteria } from "../../services/filters.ts";
import type { ForkHistoryService } from "../../services/forkHistory.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";
import { type MethodDef, type MethodRegistry, RawJson } from "../method.ts";

/**
 * `state`: the state after a block (below F: the upstream's); `history`: a block's contents (at
 * or below F: the upstream's); `tx`: a transaction by hash (the chain's, else the upstream's at
 * or below F); `logs`: a log query. `at`: the position of the block parameter.
 */
type Route =
  | { readonly kind: "state" | "history"; readonly at: number }
  | { readonly kind: "tx" }
  | { readonly kind: "logs" };

const ROUTES: Readonly<Record<string, Route>> = {
  eth_getBalance: { kind: "state", at: 1 },
  eth_getTransactionCount: { kind: "state", at: 1 },
  eth_getCode: { kind: "state", at: 1 },
  eth_getStorageAt: { kind: "state", at: 2 },
  eth_getStorageValues: { kind: "state", at: 1 },
  eth_call: { kind: "state", at: 1 },
  eth_estimateGas: { kind: "state", at: 1 },
  eth_createAccessList: { kind: "state", at: 1 },
  eth_simulateV1: { kind: "state", at: 1 },
  debug_traceCall: { kind: "state", at: 1 },
  // The chain's trie holds only what it wrote: F's proofs are the upstream's.
  eth_getProof: { kind: "history", at: 2 },
  eth_getBlockByNumber: { kind: "history", at: 0 },
  eth_getBlockByHash: { kind: "history", at: 0 },
  eth_getBlockReceipts: { kind: "history", at: 0 },
  eth_getTransactionByBlockHashAndIndex: { kind: "history", at: 0 },
  eth_getTransactionByBlockNumberAndIndex: { kind: "history", at: 0 },
  eth_getBlockTransactionCountByHash: { kind: "history", at: 0 },
  eth_getBlockTransactionCountByNumber: { kind: "history", at: 0 },
  eth_getUncleCountByBlockHash: { kind: "history", at: 0 },
  eth_getUncleCountByBlockNumber: { kind: "history", at: 0 },
  eth_getUncleByBlockHashAndIndex: { kind: "history", at: 0 },
  eth_getUncleByBlockNumberAndIndex: { kind: "history", at: 0 },
  debug_getRawHeader: { kind: "history", at: 0 },
  debug_getRawBlock: { kind: "history", at: 0 },
  debug_getRawReceipts: { kind: "history", at: 0 },
  debug_traceBlockByNumber: { kind: "history", at: 0 },
  debug_traceBlockByHash: { kind: "history", at: 0 },
  eth_getTransactionByHash: { kind: "tx" },
  eth_getTransactionReceipt: { kind: "tx" },
  debug_getRawTransaction: { kind: "tx" },
  debug_traceTransaction: { kind: "tx" },
  eth_getLogs: { kind: "logs" },
};

/** Where a call's block lies: the chain's own, or the upstream's (with its number, if known). */
type Place =
  | { readonly past: false }
  | { readonly past: true; readonly number?: bigint; readonly hash?: Uint8Array };

const OWN: Place = { past: false };

export function routePast(
  methods: MethodRegistry,
  backend: RpcBackend,
  past: ForkHistoryService,
): MethodRegistry {
  const F = BigInt(past.base.number);
  const chain = backend.chain;

  /** Where `sel` lies for a route that goes upstream below `limit` (F or F + 1). */
  function place(sel: BlockSelector | Uint8Array | undefined, limit: bigint): Place {
    if (sel instanceof Uint8Array) sel = { kind: "hash", hash: sel, requireCanonical: false };
    if (sel === undefined) sel = { kind: "tag", tag: "latest" };
    const head = BigInt(chain.headNumber() ?? 0);
    let n: bigint;
    switch (sel.kind) {
      case "hash": {
        const local = chain.blockNumber(sel.hash);
        if (local === undefined) return { past: true, hash: sel.hash };
        n = BigInt(local);
        break;
      }
      case "number":
        n = sel.number;
        break;
      case "tag":
        if (sel.tag === "pending") return OWN;
        if (sel.tag === "earliest") n = 0n;
        else if (sel.tag === "latest") n = head;
        else n = BigInt(backend.forkchoice(Number(head))[sel.tag] ?? 0);
        break;
    }
    return n < limit ? { past: true, number: n } : OWN;
  }

  /** The upstream hash of a block at or below F: the selector's, or its canonical ancestor's. */
  async function hashOf(p: Place & { past: true }): Promise<Uint8Array> {
    if (p.hash !== undefined) {
      const block = await past.blockByHash(p.hash, false);
      if (block === null) throw new ServerError("header not found");
      return p.hash;
    }
    const block = await past.blockByNumber(p.number ?? 0n, false);
    if (block === null) throw new ServerError("header not found");
    return hexToBytes(String(block.hash));
  }

  /** The call's raw parameters with its block named by hash (state) or number (history). */
  function withBlock(raw: unknown, at: number, value: unknown): unknown[] {
    const params = Array.isArray(raw) ? [...raw] : [];
    while (params.length < at) params.push(null);
    params[at] = value;
    return params;
  }

  async function historyCall(
    method: string,
    args: readonly unknown[],
    raw: unknown,
    at: number,
    p: Place & { past: true },
  ): Promise<unknown> {
    switch (method) {
      case "eth_getBlockByNumber":
      case "eth_getBlockByHash": {
        const full = args[1] === true;
        return p.hash !== undefined
          ? past.blockByHash(p.hash, full)
          : past.blockByNumber(p.number ?? 0n, full);
      }
      case "eth_getBlockReceipts": {
        if (p.hash !== undefined && (await past.blockByHash(p.hash, false)) === null) return null;
        const block = p.hash === undefined ? await past.blockByNumber(p.number ?? 0n, false) : null;
        if (p.hash === undefined && block === null) return null;
        return past.blockReceipts(p.hash ?? hexToBytes(String(block?.hash)));
      }
    }
    const id = p.hash !== undefined ? bytesToHex(p.hash) : `0x${(p.number ?? 0n).toString(16)}`;
    return forward(method, withBlock(raw, at, id));
  }

  async function forward(method: string, params: readonly unknown[]): Promise<unknown> {
    try {
      return await past.forward(method, params);
    } catch (e) {
      throw asRpcError(e);
    }
  }

  function wrap(name: string, def: MethodDef, route: Route): MethodDef {
    const handler = def.handler;
    switch (route.kind) {
      case "state":
      case "history": {
        const limit = route.kind === "state" ? F : F + 1n;
        return {
          params: def.params,
          handler: (args, ctx, raw) => {
            const p = place(args[route.at] as BlockSelector | Uint8Array | undefined, limit);
            if (!p.past) return handler(args, ctx, raw);
            if (route.kind === "history") return historyCall(name, args, raw, route.at, p);
            return hashOf(p).then((hash) =>
              forward(name, withBlock(raw, route.at, { blockHash: bytesToHex(hash) })),
            );
          },
        };
      }
      case "tx":
        return {
          params: def.params,
          handler: async (args, ctx, raw) => {
            const hash = args[0] as Uint8Array;
            if (chain.transactionLocation(hash) !== undefined) return handler(args, ctx, raw);
            // Not the chain's (or only pre-confirmed): the chain's answer, else the upstream's.
            let local: unknown;
            try {
              local = await handler(args, ctx, raw);
              if (local !== null) return local;
            } catch (e) {
              if ((await past.transaction(hash)) === null) throw e;
            }
            if (name === "eth_getTransactionByHash") return past.transaction(hash);
            if (name === "eth_getTransactionReceipt") return past.receipt(hash);
            if ((await past.transaction(hash)) === null) return local ?? null;
            return forward(name, Array.isArray(raw) ? raw : [raw]);
          },
        };
      case "logs":
        return {
          params: def.params,
          handler: (args, ctx, raw) =>
            logs(args[0] as FilterCriteria, (c) => handler([c], ctx, raw)),
        };
    }
  }

  /** eth_getLogs: the upstream's logs up to F, the chain's after it, in chain order. */
  function logs(c: FilterCriteria, own: (c: FilterCriteria) => unknown): unknown {
    const head = BigInt(chain.headNumber() ?? 0);
    if (c.blockHash !== undefined) {
      if (chain.blockNumber(c.blockHash) !== undefined && place(c.blockHash, F + 1n).past === false)
        return own(c);
      return forward("eth_getLogs", [{ ...criteriaJson(c), blockHash: bytesToHex(c.blockHash) }]);
    }
    const from = numberOf(c.fromBlock, head);
    const to = numberOf(c.toBlock, head);
    if (from === undefined || from > F || (to !== undefined && from > to)) return own(c);
    const upTo = to === undefined || to > F ? F : to;
    const upstream = past.logs({
      fromBlock: from,
      toBlock: upTo,
      ...(c.addresses === undefined
        ? {}
        : { addresses: [...c.addresses.keys].map((a) => hexToBytes(`0x${a}`)) }),
      topics: c.topics.map((set) =>
        set === undefined ? undefined : [...set].map((t) => hexToBytes(`0x${t}`)),
      ),
    });
    const rest =
      to !== undefined && to <= F
        ? undefined
        : own({ ...c, fromBlock: { kind: "number", number: F + 1n } });
    return Promise.all([upstream.catch((e: unknown) => Promise.reject(asRpcError(e))), rest]).then(
      ([upLogs, ownLogs]) => {
        const parts = upLogs.map((l) => JSON.stringify(l));
        if (ownLogs instanceof RawJson) {
          const inner = ownLogs.json.slice(1, -1);
          if (inner !== "") parts.push(inner);
        }
        return new RawJson(`[${parts.join(",")}]`);
      },
    );
  }

  const out: Record<string, MethodDef> = { ...methods };
  for (const [name, route] of Object.entries(ROUTES)) {
    const def = methods[name];
    if (def !== undefined) out[name] = wrap(name, def, route);
  }
  return out;
}

/** A selector's number (tags resolved against the head; pending is past F: undefined). */
function numberOf(sel: FilterCriteria["fromBlock"], head: bigint): bigint | undefined {
  if (sel === undefined) return head;
  if (sel.kind === "number") return sel.number;
  switch (sel.tag) {
    case "earliest":
      return 0n;
    case "pending":
      return undefined;
    default:
      return head;
  }
}

/** A filter's address and topic criteria as eth_getLogs takes them. */
function criteriaJson(c: FilterCriteria): Record<string, unknown> {
  return {
    ...(c.addresses === undefined ? {} : { address: [...c.addresses.keys].map((a) => `0x${a}`) }),
    topics: c.topics.map((set) => (set === undefined ? null : [...set].map((t) => `0x${t}`))),
  };
}

/**
 * The upstream's own JSON-RPC error for a forwarded call (a revert, "header not found") passes
 * through with its code, message and data; any other failure (unreachable, rate-limited) is an
 * operator error the dispatcher answers as one line (-32000).
 */
function asRpcError(e: unknown): unknown {
  const call = e as { rpcCode?: unknown; rpcMessage?: unknown; rpcData?: unknown; code?: unknown };
  if (call?.code === "UPSTREAM_CALL" && typeof call.rpcCode === "number")
    return new RpcError(call.rpcCode, String(call.rpcMessage), call.rpcData);
  return e;
}
