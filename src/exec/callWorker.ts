// The thread that runs eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1,
// debug_trace* and testing_buildBlockV1, so EVM work never blocks RPC answers. It reads the
// archive's flat state, and the pending block's layers the RPC thread shares with it.
import { parentPort, workerData } from "node:worker_threads";
import { decodeHeader } from "../chain/blockView.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { type PendingSnapshot, sharedSnapshot } from "../pending/pendingBlock.ts";
import { overlayPending, type StateView } from "../pending/pendingState.ts";
import type { CallTarget } from "../services/callRequest.ts";
import { forkedStateReader, UpstreamReadNeeded } from "../services/forkedState.ts";
import { discoverThenRun, fetchMisses, noteMiss, runHasMissed } from "../services/stateMisses.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { UpstreamCallStats } from "../upstream/callStats.ts";
import { openForkReads } from "../upstream/forkReads.ts";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import { parentChannel, tsWorkerData } from "../util/tsWorker.ts";
import { type CallBlockEnv, CallExecutor, CallFailedError } from "./callExecutor.ts";
import { DEFAULT_CALL_LIMITS } from "./callLimits.ts";
import type { CallParentApi, CallWorkerApi, CallWorkerData } from "./callProtocol.ts";
import { CallStateCache } from "./callStateCache.ts";
import { buildPayload, DEFAULT_GAS_CEIL } from "./payloadBuilder.ts";
import { simulate } from "./simulate/simulate.ts";
import { TraceExecutor } from "./traceExecutor.ts";

/** Sealed headers kept decoded (the blocks calls were made at most recently). */
const KEPT_HEADERS = 8;

const channel = parentChannel<CallParentApi, CallWorkerApi>(parentPort, "the RPC thread");

async function main(): Promise<void> {
  const { datadir, readOnly, limits, gasCeil, fork } = tsWorkerData<CallWorkerData>(workerData);
  const env = openKvEnv(datadir, { readOnly: readOnly ?? false });
  const archive = createChainStore(env);
  // A forked chain: what it never wrote is its upstream's at F (the EVM waits for a fetch).
  const upstreamStats = new UpstreamCallStats();
  const forkReads =
    fork === undefined
      ? undefined
      : openForkReads(env, {
          upstream: fork.upstream,
          point: {
            chainId: BigInt(fork.chainId),
            number: BigInt(fork.number),
            hash: hexToBytes(fork.hash),
          },
          hooks: upstreamStats.hooks,
        });
  const store =
    forkReads === undefined
      ? archive
      : { ...archive, ...forkedStateReader(archive, forkReads.state, noteMiss(forkReads.state)) };
  // A fork's call runs once to learn what it reads that is not fetched yet, fetches it all in one
  // upstream batch, then runs for real (services/stateMisses.ts).
  const discovering = <T>(run: () => Promise<T>): Promise<T> =>
    forkReads === undefined
      ? run()
      : discoverThenRun(run, (misses) => fetchMisses(forkReads.state, misses));
  const config = store.chainConfig();
  if (config === undefined) throw new Error(`no chain in ${datadir}`);
  const spec = await chainSpecFromGenesis(JSON.parse(config));
  const executor = new CallExecutor(spec.common, limits);
  let pending: PendingSnapshot | undefined;
  const blockHash = (n: number) => store.canonicalHash(n);

  function sealedView(number: number): StateView {
    return {
      account: (a) => store.account(a, number),
      storage: (a, s) => store.storage(a, s, number),
      code: (h) => store.code(h),
    };
  }

  const traces = new TraceExecutor(
    spec,
    {
      block(number) {
        const hash = store.canonicalHash(number);
        const headerRlp = hash === undefined ? undefined : store.headerRlp(number, hash);
        const bodyRlp = hash === undefined ? undefined : store.bodyRlp(number, hash);
        return headerRlp === undefined || bodyRlp === undefined
          ? undefined
          : { headerRlp, bodyRlp };
      },
      state: sealedView,
      blockHash,
      devWrites: (number) => store.devWrites(number),
    },
    (limits ?? DEFAULT_CALL_LIMITS).gasCap,
  );

  // What warm calls share: code by hash, sealed blocks' reads, their headers (callStateCache.ts).
  const cache = new CallStateCache(() => !runHasMissed());
  const headers = new Map<string, CallBlockEnv>();

  /** The state after sealed block `number`, its reads kept across calls (by the block's hash). */
  function cachedView(number: number): StateView {
    const hash = store.canonicalHash(number);
    return hash === undefined
      ? cache.withCode(sealedView(number))
      : cache.sealed(number, hash, sealedView(number));
  }

  function resolve(target: CallTarget): { source: StateView; env: CallBlockEnv } {
    if (target.pending && pending !== undefined && pending.base.number === target.number) {
      const b = pending.base;
      return {
        source: cache.withCode(overlayPending(pending, cachedView(b.number - 1))),
        env: {
          number: BigInt(b.number),
          timestamp: b.timestamp,
          gasLimit: b.gasLimit,
          baseFeePerGas: b.baseFeePerGas,
          coinbase: b.coinbase,
          prevRandao: b.prevRandao,
          excessBlobGas: b.excessBlobGas,
          blockHash,
        },
      };
    }
    // A pending target this thread has not seen yet runs on its parent, the newest sealed state.
    const number = target.pending ? target.number - 1 : target.number;
    const hash = store.canonicalHash(number);
    const blockEnv = hash === undefined ? undefined : headerEnv(number, hash);
    if (hash === undefined || blockEnv === undefined)
      throw new CallFailedError("header not found", -32000, undefined);
    return { source: cache.sealed(number, hash, sealedView(number)), env: blockEnv };
  }

  /** The block env of a sealed header, decoded once for the last few blocks called at. */
  function headerEnv(number: number, hash: Uint8Array): CallBlockEnv | undefined {
    const key = bytesToHex(hash);
    const kept = headers.get(key);
    if (kept !== undefined) return kept;
    const rlp = store.headerRlp(number, hash);
    if (rlp === undefined) return undefined;
    const h = decodeHeader(spec.common, rlp);
    const blockEnv: CallBlockEnv = {
      number: h.number,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      baseFeePerGas: h.baseFeePerGas,
      coinbase: h.coinbase,
      prevRandao: h.mixHash,
      excessBlobGas: h.excessBlobGas,
      blockHash,
    };
    if (headers.size >= KEPT_HEADERS) headers.delete(headers.keys().next().value!);
    headers.set(key, blockEnv);
    return blockEnv;
  }

  // The RPC thread's pending block, its layers read in place (built there, never here).
  channel.on("pending", ({ snapshot, sealed }) => {
    if (sealed) env.refresh();
    pending = sharedSnapshot(snapshot);
  });
  // A failure that is not the call's own (a bug, a missing block) is still a -32000 answer. A
  // forked chain's read the EVM did not wait for (outside its state manager) runs it again.
  const failures = async <T>(run: () => Promise<T>): Promise<T> => {
    for (;;) {
      try {
        return await discovering(run);
      } catch (e) {
        if (e instanceof UpstreamReadNeeded) {
          await e.fetch().catch((f: unknown) => {
            throw new CallFailedError((f as Error).message, -32000, undefined);
          });
          continue;
        }
        throw e instanceof CallFailedError
          ? e
          : new CallFailedError((e as Error).message, -32000, undefined);
      }
    }
  };
  channel.handle("trace", ({ request, options }) => failures(() => traces.trace(request, options)));
  channel.handle("upstreamCalls", () => upstreamStats.snapshot());
  channel.handle("build", (request) =>
    failures(() => {
      const ceil = gasCeil === undefined ? DEFAULT_GAS_CEIL : BigInt(gasCeil);
      return buildPayload(spec, store, ceil, request);
    }),
  );
  channel.handle("simulate", ({ request, target }) =>
    failures(() => {
      const gasCap = (limits ?? DEFAULT_CALL_LIMITS).gasCap;
      return simulate(request, target, spec, store, pending, gasCap);
    }),
  );
  channel.handle("call", ({ request, target }) =>
    failures(async () => {
      const { source, env: blockEnv } = resolve(target);
      return executor.call(request, source, blockEnv);
    }),
  );
  channel.handle("accessList", ({ request, target }) =>
    failures(async () => {
      const { source, env: blockEnv } = resolve(target);
      return executor.createAccessList(request, source, blockEnv);
    }),
  );
  channel.handle("estimate", ({ request, target }) =>
    failures(async () => {
      const { source, env: blockEnv } = resolve(target);
      return executor.estimateGas(request, source, blockEnv);
    }),
  );
  channel.emit("ready", null);
}

main().catch((e: unknown) =>
  channel.emit("failed", { name: "Error", message: (e as Error).stack ?? String(e) }),
);
