// A reader of a forked chain: its upstream opened in this process (the datadir's cache shared
// with the sequencer and the other readers), state reads that fall through to the upstream at F
// for what the chain never wrote, calls about blocks at or below F sent there, and the same for
// the call worker thread.

import type { CallWorkerFork } from "../exec/callProtocol.ts";
import type { Logger } from "../log/logger.ts";
import { pastLayer } from "../rpc/fork/pastRoutes.ts";
import type { MethodLayer } from "../rpc/method.ts";
import type { RpcBackend } from "../services/backend.ts";
import { forkedStateReader } from "../services/forkedState.ts";
import type { ForkHistoryService } from "../services/forkHistory.ts";
import {
  fetchMisses,
  noteMiss,
  runFetchingMisses,
  type StateMisses,
} from "../services/stateMisses.ts";
import type { ChainStore, StateReader } from "../store/archive.ts";
import type { KvEnv } from "../store/lmdb.ts";
import type { UpstreamHooks } from "../upstream/calls.ts";
import { type ForkReads, openForkReads } from "../upstream/forkReads.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex } from "../util/hex.ts";

/** A forked chain's archive opened without its upstream (`serve`, a replica without one). */
export class ForkUpstreamMissingError extends FlashnodeError {
  readonly code = "FORK_UPSTREAM_MISSING";
}

export type ForkView = {
  readonly callWorker: CallWorkerFork;
  /** What the RPC layer shows of the fork's origin (anvil_nodeInfo, anvil_metadata). */
  readonly origin: NonNullable<RpcBackend["fork"]>;
  readonly state: StateReader;
  /**
   * A fork's steps of the read path (node/readPath.ts), outermost first: the upstream's past
   * sent there, then state misses fetched and the handler run again.
   */
  steps(backend: RpcBackend): readonly MethodLayer[];
  close(): void;
};

export function openForkView(
  archive: { readonly kv: KvEnv; readonly store: ChainStore },
  upstream: UpstreamOptions | undefined,
  logger: Logger,
  /** What the upstream client reports its calls to (the reader's metrics). */
  hooks?: UpstreamHooks,
): ForkView | undefined {
  const base = archive.store.forkBase();
  if (base === undefined) return undefined;
  if (upstream === undefined)
    throw new ForkUpstreamMissingError(
      `the chain in ${archive.kv.path.replace(/\/archive$/, "")} is a fork of chain ${base.chainId} at block ${base.number}: its state beyond what it wrote is the upstream's, so it runs with its upstream (dev --fork-url URL; a replica: --fork-url URL)`,
    );
  const point = { chainId: base.chainId, number: BigInt(base.number), hash: base.hash };
  const reads = openForkReads(archive.kv, {
    upstream,
    point,
    logger,
    ...(hooks === undefined ? {} : { hooks }),
  });
  const fetch = (misses: StateMisses) => fetchMisses(reads.state, misses);
  return {
    callWorker: {
      upstream,
      chainId: base.chainId.toString(),
      number: base.number,
      hash: bytesToHex(base.hash),
    },
    origin: {
      chainId: base.chainId,
      number: base.number,
      hash: base.hash,
      origin: originOf(upstream.url),
      retryBackoffMs: upstream.retryBackoffMs,
    },
    state: forkedStateReader(archive.store, reads.state, noteMiss(reads.state)),
    steps(backend) {
      const fetchingMisses: MethodLayer = (_name, _def, next) => (args, ctx, raw) =>
        runFetchingMisses(() => next(args, ctx, raw), fetch);
      return [pastLayer(backend, historyService(reads, base)), fetchingMisses];
    },
    close: () => reads.close(),
  };
}

function historyService(
  reads: ForkReads,
  base: { readonly chainId: bigint; readonly number: number; readonly hash: Uint8Array },
): ForkHistoryService {
  const h = reads.history;
  return {
    base,
    state: reads.state,
    blockByNumber: (n, full) => h.blockByNumber(n, full),
    blockByHash: (hash, full) => h.blockByHash(hash, full),
    blockReceipts: (hash) => h.blockReceipts(hash),
    transaction: (hash) => h.transaction(hash),
    receipt: (hash) => h.receipt(hash),
    logs: (filter) => h.logs(filter),
    forward: (method, params) => reads.forward(method, params),
  };
}

/** A URL's scheme and host: what may be shown of it (its path or query may hold a key). */
function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "(invalid URL)";
  }
}
