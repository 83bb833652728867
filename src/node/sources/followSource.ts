// `flashnode follow`'s chain source: a live chain followed on the follower thread (src/follow/),
// its archive begun at a recent block F of the upstream (or continued), and the node's
// transactions sent to the upstream, or to --tx-forward (a sequencer's endpoint). With --nats,
// the follower thread publishes what it follows for replicas (one follower of a stream at a time).

import { FollowerClient } from "../../follow/followerClient.ts";
import { transactionForwarder } from "../../follow/txForward.ts";
import type { Logger } from "../../log/logger.ts";
import type { ChainUpdate } from "../../pending/types.ts";
import { newPublisherId, streamNames } from "../../replica/streams.ts";
import { createChainStore } from "../../store/chainStore.ts";
import { openKvEnv } from "../../store/lmdb.ts";
import { mergeUpstreamSeries, UpstreamCallStats } from "../../upstream/callStats.ts";
import { combineHooks, startRetryNotice } from "../../upstream/calls.ts";
import { UpstreamClient } from "../../upstream/client.ts";
import { upstreamHost } from "../../upstream/errors.ts";
import { prepareFork } from "../../upstream/forkSetup.ts";
import { upstreamOptions } from "../../upstream/options.ts";
import { FlashnodeError } from "../../util/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import type { ChainSource, FollowPlan, ForkInfo } from "../plan.ts";

export async function startFollowSource(args: {
  readonly datadir: string;
  readonly follow: FollowPlan;
  readonly logger: Logger;
  readonly publish: (u: ChainUpdate) => void;
  /** The follower's thread ended by itself: the node cannot go on. */
  readonly onFatal: (e: Error) => void;
}): Promise<ChainSource> {
  const f = args.follow;
  const env = openKvEnv(args.datadir);
  /** What this thread's upstream clients did (the start, forwarded transactions; metrics). */
  const calls = new UpstreamCallStats();
  const client = new UpstreamClient(f.upstream, {
    logger: args.logger,
    hooks: combineHooks(calls.hooks, startRetryNotice(args.logger, upstreamHost(f.upstream.url))),
  });
  let start: {
    genesis: Record<string, unknown>;
    chainId: bigint;
    number: number;
    hash: Uint8Array;
    headerRlp?: Uint8Array;
    name?: string;
    /** System contracts the upstream lacks (see forkSetup.ts), for a new archive. */
    contracts: { address: string; code: string }[];
  };
  try {
    const store = createChainStore(env);
    const stored = store.forkBase();
    if (store.headNumber() !== undefined && stored === undefined)
      throw new FollowDatadirError(
        `${args.datadir} holds a chain of its own, not one followed: use another --datadir`,
      );
    const setup = await prepareFork(
      client,
      env,
      {
        ...(stored === undefined
          ? {}
          : { blockNumber: BigInt(stored.number), chainId: stored.chainId }),
        hardfork: f.hardfork,
        accounts: [],
        balanceWei: 0n,
        continuing: stored !== undefined,
      },
      { logger: args.logger },
    );
    const contracts =
      stored === undefined
        ? setup.baseWrites.flatMap((w) =>
            w.code === undefined ? [] : [{ address: w.address, code: w.code }],
          )
        : [];
    if (contracts.length > 0)
      args.logger.info(
        { contracts: contracts.map((c) => c.address) },
        "the upstream lacks system contracts the EVM calls at every block: installed in this node's own state",
      );
    start = {
      contracts,
      genesis: stored === undefined ? setup.genesis : JSON.parse(store.chainConfig() ?? "{}"),
      chainId: setup.point.chainId,
      number: Number(setup.point.number),
      hash: setup.point.hash,
      ...(stored === undefined ? { headerRlp: setup.headerRlp } : {}),
      ...(setup.name === undefined ? {} : { name: setup.name }),
    };
  } finally {
    client.close();
    await env.close();
  }
  const txTarget =
    f.txForward === undefined ? f.upstream : upstreamOptions(f.txForward, { ...f.upstream });
  const publisherId = newPublisherId();
  const follower = await FollowerClient.start(
    {
      datadir: args.datadir,
      genesis: start.genesis,
      upstream: f.upstream,
      chainId: start.chainId.toString(),
      number: start.number,
      hash: bytesToHex(start.hash),
      ...(start.headerRlp === undefined ? {} : { headerRlp: bytesToHex(start.headerRlp) }),
      contracts: start.contracts,
      flashblocksUrl: f.flashblocksUrl,
      pollMs: f.pollMs,
      maxPendingDepth: f.maxPendingDepth,
      streamReadTimeoutMs: f.streamReadTimeoutMs,
      logLevel: args.logger.level,
      ...(f.nats === undefined
        ? {}
        : {
            nats: {
              servers: f.nats.servers,
              streams: f.nats.streams,
              leaseTtlMs: f.nats.leaseTtlMs,
              id: publisherId,
              txForward: txTarget,
            },
          }),
    },
    args.publish,
    args.logger.child({ module: "follow" }),
    args.onFatal,
  );
  const forwarder = transactionForwarder(txTarget, args.logger, calls.hooks);
  const info: ForkInfo = {
    host: upstreamHost(f.upstream.url),
    chainId: start.chainId,
    number: start.number,
    ...(start.name === undefined ? {} : { name: start.name }),
  };
  return {
    target: { submit: (raw) => forwarder.submit(raw), mine: () => forwarder.mine() },
    resumedAt: follower.resumedAt,
    upstream: { label: "Following", url: info.host },
    fork: info,
    readiness: () => [...follower.health.reasons],
    upstreamCalls: () => mergeUpstreamSeries([calls.snapshot(), follower.health.upstream]),
    ...(f.nats === undefined
      ? {}
      : {
          publisherRole: () => follower.health.publisher?.role ?? "standby",
          publisherId,
          publishing: `${f.nats.servers.join(",")} (streams ${streamNames(f.nats.streams.prefix).blocks.replace(/_BLOCKS$/, "")}_*, lease TTL ${f.nats.leaseTtlMs} ms)`,
        }),
    lag: () => ({ blocks: follower.health.lagBlocks, seconds: 0 }),
    counters: () => {
      const h = follower.health;
      return {
        ...h.events,
        streamReconnects: h.stream.reconnects,
        streamReadTimeouts: h.stream.readTimeouts,
        streamPingsMissed: h.stream.pingsMissed,
        importedBlocks: h.imported.blocks,
        importedFromReplay: h.imported.fromReplay,
        importedGas: Number(h.imported.gas),
        importMilliseconds: Math.round(h.imported.ms),
      };
    },
    followStream: () => {
      const s = follower.health.stream;
      return {
        connected: s.connected,
        connects: s.connects,
        reconnects: s.reconnects,
        disconnects: s.disconnects,
        frames: s.frames,
        flashblocks: s.flashblocks,
        invalidFrames: s.invalid,
        bytes: s.bytes,
        lastFrameAt: s.lastFrameAt,
      };
    },
    async close() {
      forwarder.close();
      await follower.stop();
    },
  };
}

export class FollowDatadirError extends FlashnodeError {
  readonly code = "FOLLOW_DATADIR";
}
