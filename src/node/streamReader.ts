// One of the reader processes of `dev --rpc-workers N` or `replica --rpc-workers N`: it follows
// the primary's chain stream over IPC (chainFollower.ts, the same code the single-process node
// runs), reads the one archive, runs its own call worker, and hands transactions to the primary
// (dev's sequencer, or a replica's forwarder to the sequencer). Every reader serves HTTP,
// WebSocket subscriptions and /flashblocks alike.
import { decodeHeader } from "../chain/blockView.ts";
import type { DevAccount } from "../chain/devGenesis.ts";
import { trailingForkchoice } from "../chain/forkchoice.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { CallClient } from "../exec/callClient.ts";
import type { CallLimits } from "../exec/callLimits.ts";
import { createDevSigner } from "../exec/devSigner.ts";
import { createFeedHub } from "../feed/hub.ts";
import type { Logger } from "../log/logger.ts";
import type { MethodRegistry } from "../rpc/method.ts";
import { createMethods } from "../rpc/methods.ts";
import { RpcError } from "../services/errors.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { perRun } from "../util/perRun.ts";
import type { RunningServer } from "./archiveServer.ts";
import { createBackend } from "./backendFactory.ts";
import {
  type ChainFollower,
  createChainFollower,
  followerHealth,
  followerMetrics,
} from "./chainFollower.ts";
import type { ReceiptLookups } from "./devNode.ts";
import { type FrontendOptions, startFrontend } from "./frontend.ts";
import { PositionFence } from "./positionFence.ts";
import type { PrimaryMessage, ReaderMessage } from "./readerLink.ts";
import { withinLag } from "./readiness.ts";

type Reply = Extract<PrimaryMessage, { type: "flashnode:reply" }>;

/** How long a call waits for an update the fence says another reader may have shown. */
const FENCE_WAIT_MS = 250;

export type ReplicaReaderOptions = {
  /** /readyz says not ready while the primary's archive is more blocks than this behind. */
  readonly maxLagBlocks: number;
};

export async function startStreamReader(opts: {
  readonly datadir: string;
  readonly frontend: FrontendOptions;
  readonly logger: Logger;
  readonly readers: number;
  /** Whether this reader records each flashblock's build time (one reader does, for the node). */
  readonly recordsBuilds: boolean;
  readonly safeDepth: number;
  readonly finalizedDepth: number;
  readonly flashblockIntervalMs: number;
  readonly receipts: ReceiptLookups;
  /** dev's --gas-limit: what testing_buildBlockV1's blocks move towards (else geth's default). */
  readonly gasCeil?: bigint;
  /** A replica's reader: reports the primary's lag behind the block stream. */
  readonly replica?: ReplicaReaderOptions;
  /** --rpc-gascap, --rpc-evmtimeout (geth's defaults when absent). */
  readonly callLimits?: CallLimits;
  /** dev: the test accounts (those the chain's genesis funds sign eth_sendTransaction & co.). */
  readonly accounts?: readonly DevAccount[];
}): Promise<RunningServer> {
  // Opened as the call worker opens it (lmdb shares one environment per process, and its
  // threads must agree on the mode); nothing here writes.
  const kv = openKvEnv(opts.datadir);
  const store = createChainStore(kv);
  const config = store.chainConfig();
  if (config === undefined) throw new Error("the sequencer has not written the chain config");
  const spec = await chainSpecFromGenesis(JSON.parse(config));
  const calls = await CallClient.start(
    {
      datadir: opts.datadir,
      ...(opts.gasCeil === undefined ? {} : { gasCeil: opts.gasCeil.toString() }),
      ...(opts.callLimits === undefined ? {} : { limits: opts.callLimits }),
    },
    opts.logger,
  );
  const feed = createFeedHub();
  const follower = createChainFollower({
    kv,
    store,
    feed,
    decodeHeader: (rlp) => decodeHeader(spec.common, rlp),
    forward: (u) => calls.forward(u),
  });
  const fence = PositionFence.open(opts.datadir);
  const poolNonces = new Map<string, bigint>();
  const relayListeners: Array<(lagMs: number) => void> = [];
  let nextId = 1;
  const replies = new Map<number, { resolve(v: Reply): void; reject(e: Error): void }>();
  let lag = { blocks: 0, seconds: 0 };
  const send = (m: ReaderMessage) => process.send?.(m);
  const ask = (m: (id: number) => ReaderMessage): Promise<Reply> => {
    const id = nextId++;
    return new Promise((resolve, reject) => {
      replies.set(id, { resolve, reject });
      send(m(id));
    });
  };
  const request = (m: (id: number) => ReaderMessage) => ask(m).then((r) => r.value ?? "");
  let joined: () => void = () => {};
  const ready = new Promise<void>((resolve) => {
    joined = resolve;
  });
  const onMessage = (m: PrimaryMessage) => {
    if (m.type === "flashnode:updates") {
      for (const u of m.updates) {
        // evm_revert: the pool's next nonces are the state's again (sequencerClient.ts).
        if (u.kind === "sealed" && u.reverted !== undefined) poolNonces.clear();
        // Without sentAt: the block so far, sent as this reader joined (updateRelay.ts).
        follower.apply(u, m.sentAt === undefined);
      }
      if (m.sentAt !== undefined) {
        const lagMs = performance.timeOrigin + performance.now() - m.sentAt;
        for (const l of relayListeners) l(lagMs);
      }
      joined();
    } else if (m.type === "flashnode:poolNonces") {
      for (const [address, nonce] of m.entries) {
        const known = poolNonces.get(address);
        if (known === undefined || nonce > known) poolNonces.set(address, nonce);
      }
    } else if (m.type === "flashnode:reply") {
      const r = replies.get(m.id);
      replies.delete(m.id);
      if (m.error !== undefined)
        r?.reject(new RpcError(m.error.code, m.error.message, m.error.data));
      else r?.resolve(m);
    } else if (m.type === "flashnode:lag") {
      lag = { blocks: m.blocks, seconds: m.seconds };
    }
  };
  process.on("message", onMessage);
  send({ type: "flashnode:follow" });
  await ready;

  const backend = createBackend(spec, store, {
    feed,
    pending: follower.pending,
    transactions: {
      submit: (raw) =>
        request((id) => ({ type: "flashnode:submit", id, raw })).then((hash) => ({ hash })),
      poolNonce: (address) => poolNonces.get(bytesToUnprefixedHex(address)),
      mine: () => request((id) => ({ type: "flashnode:mine", id })).then(Number),
      poolContent: () =>
        ask((id) => ({ type: "flashnode:pool", id })).then(
          (r) => r.pool ?? { pending: [], queued: [] },
        ),
      control: (request) =>
        ask((id) => ({ type: "flashnode:control", id, request })).then((r) => r.dev ?? {}),
      waitForReceipt: (hash, ms) =>
        opts.receipts === "sealed"
          ? follower.waitUntilSealed(hash, ms)
          : follower.waitForInclusion(hash, ms),
    },
    calls,
    ...(opts.accounts === undefined
      ? {}
      : {
          signer: createDevSigner(
            spec,
            opts.accounts.filter((a) => spec.alloc.has(a.address.slice(2).toLowerCase())),
          ),
        }),
    preconfirmedReceipts: opts.receipts === "preconfirmed",
    forkchoice: trailingForkchoice(opts.safeDepth, opts.finalizedDepth),
    timeline: follower.timeline,
  });
  const methods = fenced(createMethods(backend), fence, follower);
  const health = followerHealth(kv, store, follower, opts.flashblockIntervalMs);
  const replica = opts.replica;
  const frontend = await startFrontend({
    options: opts.frontend,
    methods,
    feed,
    logger: opts.logger,
    readers: opts.readers,
    metricsSources: {
      ...followerMetrics(kv, store, follower),
      recordsBuilds: opts.recordsBuilds,
      onRelay: (l) => relayListeners.push(l),
      ...(replica === undefined ? {} : { replicaLag: () => lag }),
    },
    health:
      replica === undefined ? health : () => withinLag(health(), lag.blocks, replica.maxLagBlocks),
  });
  return {
    url: frontend.url,
    dedicatedUrl: frontend.dedicatedUrl,
    server: frontend.server,
    async close() {
      process.off("message", onMessage);
      await frontend.close();
      await calls.stop();
      fence.close();
      await kv.close();
    },
  };
}

/**
 * Each call first catches up with the fence: another reader may already have shown a newer
 * flashblock or head to the same client. Caught up (nearly always), the call runs as it is.
 * The fence is read once per synchronous run (a batch's calls share the read): every call of a
 * run was sent before its client saw any answer of it, so a newer position written meanwhile
 * cannot have been shown to that client.
 */
function fenced(
  methods: MethodRegistry,
  fence: PositionFence,
  follower: ChainFollower,
): MethodRegistry {
  const fencePosition = perRun(() => fence.read());
  const out: Record<string, MethodRegistry[string]> = {};
  for (const [name, def] of Object.entries(methods)) {
    const handler = def.handler;
    out[name] = {
      params: def.params,
      handler: (args, ctx) => {
        const at = fencePosition();
        if (at <= follower.position()) return handler(args, ctx);
        return follower.waitForPosition(at, FENCE_WAIT_MS).then(() => handler(args, ctx));
      },
    };
  }
  return out;
}
