// The execution-apis fixture chain served in-process, for method tests: calls go through the
// real dispatcher and registry, over the imported archive as it is, or over a view of it whose
// head is moved back to block h - 1 with block h as the pre-confirmed ("pending") block.
import { createBlockHeaderFromRLP } from "@ethereumjs/block";
import { type ChainSpec, chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { bodyTransactions } from "../../src/chain/rawEncoding.ts";
import { createBackend } from "../../src/node/backendFactory.ts";
import { applyFlashblock, type PendingBlock } from "../../src/pending/pendingBlock.ts";
import type { FlashblockUpdate, StateDiff } from "../../src/pending/types.ts";
import { createDispatcher } from "../../src/rpc/dispatch.ts";
import { createMethods } from "../../src/rpc/methods.ts";
import { SplicedBody } from "../../src/rpc/splicedBody.ts";
import type { RpcBackend } from "../../src/services/backend.ts";
import type { CallService } from "../../src/services/calls.ts";
import type { ChainStore } from "../../src/store/archive.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { type KvEnv, openKvEnv } from "../../src/store/lmdb.ts";
import { importFixtureChain } from "./fixtures.ts";

export type RpcReply = {
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
};

export type Caller = (method: string, params?: unknown[]) => Promise<RpcReply>;

export type FixtureChain = {
  readonly store: ChainStore;
  readonly spec: ChainSpec;
  /** The archive as imported (head 54, no pre-confirmed block). */
  readonly call: Caller;
  /**
   * The archive as it was before block `pending` was sealed (head `pending - 1`), with block
   * `pending` as the pre-confirmed block; without `pending`, head `head` and no such block.
   */
  at(view: {
    head: number;
    pending?: boolean;
    preconfirmedReceipts?: boolean;
    /** EVM calls over this view of the archive (none by default). */
    calls?: (store: ChainStore, pending: PendingBlock | undefined) => CallService;
  }): Caller;
  close(): Promise<void>;
};

/**
 * Sealed block `n` as the pre-confirmed block a sequencer would have published before sealing
 * (one flashblock); `diff`: the state it wrote, when a test reads it.
 */
export function pendingFromSealed(
  store: ChainStore,
  spec: ChainSpec,
  n: number,
  diff: StateDiff = { accounts: [], storage: [], wiped: [], code: [] },
): PendingBlock {
  return applyFlashblock(undefined, flashblockFromSealed(store, spec, n, diff));
}

/** Sealed block `n` as the one flashblock (index 0) a sequencer would have published of it. */
export function flashblockFromSealed(
  store: ChainStore,
  spec: ChainSpec,
  n: number,
  diff: StateDiff = { accounts: [], storage: [], wiped: [], code: [] },
): FlashblockUpdate {
  const hash = store.canonicalHash(n)!;
  const h = createBlockHeaderFromRLP(store.headerRlp(n, hash)!, {
    common: spec.common,
    setHardfork: true,
  });
  const receipts = store.receipts(n, hash)!.receipts;
  const raws = bodyTransactions(store.bodyRlp(n, hash)!);
  return {
    kind: "flashblock",
    base: {
      number: n,
      parentHash: h.parentHash,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      baseFeePerGas: h.baseFeePerGas!,
      coinbase: h.coinbase.bytes,
      prevRandao: h.mixHash,
      parentBeaconBlockRoot: h.parentBeaconBlockRoot!,
      extraData: h.extraData,
      blobGasPrice: h.getBlobGasPrice(),
      excessBlobGas: h.excessBlobGas!,
    },
    index: 0,
    transactions: raws.map((raw, i) => ({ raw, hash: receipts[i]!.transactionHash })),
    receipts,
    diff,
    gasUsed: h.gasUsed,
    blobGasUsed: h.blobGasUsed!,
    logsBloom: h.logsBloom,
    receiptsRoot: h.receiptTrie,
    transactionsRoot: h.transactionsTrie,
    wireJson: "{}",
    buildMs: 0,
    publishedAt: Date.now(),
  };
}

/** The archive as if nothing above `head` were sealed yet. */
function truncated(store: ChainStore, head: number): ChainStore {
  return {
    ...store,
    headNumber: () => head,
    canonicalHash: (n) => (n > head ? undefined : store.canonicalHash(n)),
    blockNumber(hash) {
      const n = store.blockNumber(hash);
      return n === undefined || n > head ? undefined : n;
    },
    transactionLocation(hash) {
      const location = store.transactionLocation(hash);
      return location === undefined || location.number > head ? undefined : location;
    },
    forkchoice: () => ({ safe: head, finalized: head }),
  };
}

/** Calls through the dispatcher and every registered method of a backend. */
export function callerFor(backend: RpcBackend): Caller {
  const dispatcher = createDispatcher(createMethods(backend));
  let id = 0;
  return async (method, params) => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params });
    const out = await dispatcher.handle(body, { tier: "dedicated" });
    if (out instanceof SplicedBody) return JSON.parse(out.toBuffer().toString()) as RpcReply;
    if (typeof out !== "string") throw new Error(`no JSON-RPC answer to ${method}`);
    return JSON.parse(out) as RpcReply;
  };
}

/** Imports the fixture chain into a fresh datadir and serves it in-process. */
export async function fixtureChain(label: string): Promise<FixtureChain> {
  const env: KvEnv = openKvEnv(importFixtureChain(label), { readOnly: true });
  const store = createChainStore(env);
  const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()!));
  return {
    store,
    spec,
    call: callerFor(createBackend(spec, store)),
    at({ head, pending = false, preconfirmedReceipts = true, calls }) {
      const block = pending ? pendingFromSealed(store, spec, head + 1) : undefined;
      const view = truncated(store, head);
      const backend = createBackend(spec, view, {
        pending: () => block,
        preconfirmedReceipts,
        ...(calls === undefined ? {} : { calls: calls(view, block) }),
      });
      return callerFor(backend);
    },
    close: () => env.close(),
  };
}

/** The result of a call that must succeed. */
export async function result(call: Caller, method: string, params: unknown[] = []) {
  const reply = await call(method, params);
  if (reply.error !== undefined)
    throw new Error(`${method}: ${reply.error.code} ${reply.error.message}`);
  return reply.result;
}
