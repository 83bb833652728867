// A forked chain's past is its upstream's: calls about a block at or below the fork block F go
// there, through the datadir's cache (what cannot change is fetched once). As anvil does:
// blocks, receipts, transactions, uncles, traces and proofs at or below F, and state at blocks
// below F (state at F itself is the chain's own: the upstream's plus the accounts it funded);
// lookups by transaction hash try the chain first; eth_getLogs ranges across F are split.
// Which methods, and where their block is, the method registry declares (`MethodDef.reads`,
// the block parameter's parser); whose a block is, resolveBlock.ts `placeBlock` decides.
import type { RpcBackend } from "../../services/backend.ts";
import type { BlockSelector } from "../../services/blockSelector.ts";
import { RpcError, ServerError } from "../../services/errors.ts";
import type { FilterCriteria } from "../../services/filters.ts";
import type { ForkHistoryService } from "../../services/forkHistory.ts";
import { bytesToHex, hexToBytes } from "../../util/hex.ts";
import {
  blockParamAt,
  type DataAccess,
  type Handler,
  type MethodDef,
  type MethodLayer,
  RawJson,
} from "../method.ts";
import { type BlockPlace, placeBlock, tagNumber } from "../resolveBlock.ts";

type Past = BlockPlace & { past: true };

/** A block parameter's value as a selector (a ByHash method's is the hash itself). */
function selectorOf(value: unknown): BlockSelector | undefined {
  if (value instanceof Uint8Array) return { kind: "hash", hash: value, requireCanonical: false };
  return value as BlockSelector | undefined;
}

/** The step of a fork's read path that sends the upstream's past there. */
export function pastLayer(backend: RpcBackend, past: ForkHistoryService): MethodLayer {
  const F = BigInt(past.base.number);
  const chain = backend.chain;

  /** The upstream hash of a block at or below F: the selector's, or its canonical ancestor's. */
  async function hashOf(p: Past): Promise<Uint8Array> {
    if (p.hash !== undefined) {
      const block = await past.blockByHash(p.hash, false);
      if (block === null) throw new ServerError("header not found");
      return p.hash;
    }
    const block = await past.blockByNumber(p.number, false);
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
    p: Past,
  ): Promise<unknown> {
    switch (method) {
      case "eth_getBlockByNumber":
      case "eth_getBlockByHash": {
        const full = args[1] === true;
        return p.hash !== undefined
          ? past.blockByHash(p.hash, full)
          : past.blockByNumber(p.number, full);
      }
      case "eth_getBlockReceipts": {
        if (p.hash !== undefined && (await past.blockByHash(p.hash, false)) === null) return null;
        const block = p.hash === undefined ? await past.blockByNumber(p.number, false) : null;
        if (p.hash === undefined && block === null) return null;
        return past.blockReceipts(p.hash ?? hexToBytes(String(block?.hash)));
      }
    }
    const id = p.hash !== undefined ? bytesToHex(p.hash) : `0x${p.number.toString(16)}`;
    return forward(method, withBlock(raw, at, id));
  }

  async function forward(method: string, params: readonly unknown[]): Promise<unknown> {
    try {
      return await past.forward(method, params);
    } catch (e) {
      throw asRpcError(e);
    }
  }

  /** A method that reads a block's state or contents: the upstream's past sent there. */
  function atBlock(name: string, def: MethodDef, next: Handler, reads: "state" | "block"): Handler {
    const at = blockParamAt(def);
    if (at === undefined) throw new Error(`${name} reads a block but takes no block parameter`);
    return (args, ctx, raw) => {
      const p = placeBlock(backend, selectorOf(args[at]), reads);
      if (!p.past) return next(args, ctx, raw);
      if (reads === "block") return historyCall(name, args, raw, at, p);
      return hashOf(p).then((hash) =>
        forward(name, withBlock(raw, at, { blockHash: bytesToHex(hash) })),
      );
    };
  }

  /** A transaction by hash: the chain's answer, else the upstream's. */
  function byHash(name: string, next: Handler): Handler {
    return async (args, ctx, raw) => {
      const hash = args[0] as Uint8Array;
      if (chain.transactionLocation(hash) !== undefined) return next(args, ctx, raw);
      // Not the chain's (or only pre-confirmed): the chain's answer, else the upstream's.
      let local: unknown;
      try {
        local = await next(args, ctx, raw);
        if (local !== null) return local;
      } catch (e) {
        if ((await past.transaction(hash)) === null) throw e;
      }
      if (name === "eth_getTransactionByHash") return past.transaction(hash);
      if (name === "eth_getTransactionReceipt") return past.receipt(hash);
      if ((await past.transaction(hash)) === null) return local ?? null;
      return forward(name, Array.isArray(raw) ? raw : [raw]);
    };
  }

  /** A log range's bound (absent: latest) as the resolver reads it; pending is past F: undefined. */
  function boundOf(sel: FilterCriteria["fromBlock"], top: number): bigint | undefined {
    if (sel === undefined) return BigInt(top);
    if (sel.kind === "number") return sel.number;
    return sel.tag === "pending" ? undefined : BigInt(tagNumber(backend, sel.tag, top));
  }

  /** eth_getLogs: the upstream's logs up to F, the chain's after it, in chain order. */
  function logs(c: FilterCriteria, own: (c: FilterCriteria) => unknown): unknown {
    const head = chain.headNumber() ?? 0;
    if (c.blockHash !== undefined) {
      if (!placeBlock(backend, selectorOf(c.blockHash), "block").past) return own(c);
      return forward("eth_getLogs", [{ ...criteriaJson(c), blockHash: bytesToHex(c.blockHash) }]);
    }
    const from = boundOf(c.fromBlock, head);
    const to = boundOf(c.toBlock, head);
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

  return (name, def, next) => {
    const reads: DataAccess | undefined = def.reads;
    switch (reads) {
      case undefined:
      case "ownBlocks":
        return next;
      case "state":
        return atBlock(name, def, next, "state");
      // The chain's trie holds only what it wrote: F's proofs are the upstream's.
      case "block":
      case "proof":
        return atBlock(name, def, next, "block");
      case "transaction":
        return byHash(name, next);
      case "logs":
        return (args, ctx, raw) => logs(args[0] as FilterCriteria, (c) => next([c], ctx, raw));
    }
  };
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
