// The one assembly of a node. Every role is a NodePlan (node/plan.ts): a chain source, the
// archive it fills, the update stream it publishes (the pending source), readers (this process,
// or --rpc-workers processes fed over the one channel), and the edge each reader serves. Parts
// start in one order and stop in the reverse; nothing is wired after construction.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { devAccounts } from "../chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { applyFlashblock, type PendingBlock } from "../pending/pendingBlock.ts";
import { lockDatadir } from "../store/datadir.ts";
import { unlessAborted } from "../util/abort.ts";
import { logDevChain } from "./devLog.ts";
import { type ChainSource, forkUpstreamOf, type NodePlan, type RunningNode } from "./plan.ts";
import { PositionFence } from "./positionFence.ts";
import { type Archive, startReader } from "./reader.ts";
import { startReaderHost } from "./readerHost.ts";
import { startReaderProcess } from "./readerProcess.ts";
import { openArchive, servedArchive } from "./sources/archiveSource.ts";
import { startSequencerSource } from "./sources/sequencerSource.ts";
import { UpdateStream } from "./updateStream.ts";

/**
 * Runs the node `plan` describes; in a --rpc-workers process, that process's reader. `stop`
 * aborted while it starts: the start gives up (rejects with its reason), what it started stopped.
 */
export function startNode(plan: NodePlan, stop?: AbortSignal): Promise<RunningNode> {
  return plan.process.kind === "reader"
    ? startReaderProcess(plan, plan.process)
    : startPrimary(plan, stop);
}

/** Stops, in reverse order of start, what was started. */
class Parts {
  private readonly stops: Array<() => unknown> = [];
  add(stop: () => unknown): void {
    this.stops.push(stop);
  }
  async stopAll(): Promise<void> {
    for (const stop of this.stops.splice(0).reverse()) await stop();
  }
}

async function startPrimary(plan: NodePlan, stop?: AbortSignal): Promise<RunningNode> {
  const { datadir, logger } = plan;
  const parts = new Parts();
  let fail: (e: Error) => void = () => {};
  const failed = new Promise<Error>((resolve) => {
    fail = resolve;
  });
  try {
    if (plan.fresh) {
      // Only a datadir no live process holds may be wiped. A fork keeps what it fetched from its
      // upstream (only upstream values, valid for any fork of that chain and block).
      lockDatadir(datadir).release();
      if (forkUpstreamOf(plan) === undefined) rmSync(datadir, { recursive: true, force: true });
      else await clearChain(datadir);
    }
    // serve only reads: it shares its datadir with whatever else reads it.
    if (plan.source.kind !== "archive") {
      const lock = lockDatadir(datadir);
      parts.add(() => lock.release());
    }
    const stream = new UpdateStream();
    const publish = (u: Parameters<UpdateStream["publish"]>[0]) => stream.publish(u);
    /** A source whose thread writes the archive; this process opens it beside, to read. */
    const writerSource = async (
      starting: Promise<ChainSource>,
    ): Promise<[ChainSource, Archive]> => {
      const started = await unlessAborted(starting, stop, (late) => late.close());
      parts.add(() => started.close());
      const opened = openArchive(datadir, false);
      parts.add(() => opened.kv.close());
      return [started, opened];
    };
    let source: ChainSource;
    let archive: Archive;
    switch (plan.source.kind) {
      case "sequencer": {
        [source, archive] = await writerSource(
          startSequencerSource({
            datadir,
            chain: plan.source.chain,
            logger,
            publish,
            onFatal: fail,
          }),
        );
        break;
      }
      case "jetstream": {
        // NATS is loaded by the roles that use it only.
        const { startJetStreamSource } = await import("./sources/jetstreamSource.ts");
        const s = await startJetStreamSource({
          datadir,
          servers: plan.source.servers,
          streams: plan.source.streams,
          verify: plan.source.verify,
          logger,
          publish,
          onFatal: fail,
          ...(stop === undefined ? {} : { stop }),
        });
        source = s;
        archive = s.archive;
        parts.add(() => s.close());
        break;
      }
      case "follow": {
        const { startFollowSource } = await import("./sources/followSource.ts");
        [source, archive] = await writerSource(
          startFollowSource({
            datadir,
            follow: plan.source.follow,
            logger,
            publish,
            onFatal: fail,
          }),
        );
        break;
      }
      case "archive": {
        archive = await servedArchive(datadir);
        parts.add(() => archive.kv.close());
        source = {
          target: undefined,
          resumedAt: undefined,
          readiness: () => [],
          close: async () => {},
        };
        break;
      }
    }
    stop?.throwIfAborted();
    const live = plan.source.kind !== "archive";
    const spec = await chainSpecFromGenesis(JSON.parse(archive.store.chainConfig()!));
    const head = archive.store.headNumber() ?? 0;
    const sourceHealth = () => ({
      reasons: source.readiness(),
      ...(source.lag === undefined ? {} : { lag: source.lag() }),
      ...(source.counters === undefined ? {} : { counters: source.counters() }),
      ...(source.followStream === undefined ? {} : { followStream: source.followStream() }),
      ...(source.publisherRole === undefined ? {} : { publisher: source.publisherRole() }),
      ...(source.upstreamCalls === undefined ? {} : { upstream: source.upstreamCalls() }),
    });
    if (plan.role === "dev") parts.add(logDevChain(stream, archive.store, logger));
    // A fork funds them all on top of its upstream; a chain of its own, those its genesis does.
    const forked = archive.store.forkBase() !== undefined;
    const accounts =
      plan.source.kind === "sequencer"
        ? devAccounts(plan.source.chain.accounts).filter(
            (a) => forked || spec.alloc.has(a.address.slice(2).toLowerCase()),
          )
        : [];
    const common = {
      process: "primary" as const,
      role: plan.role,
      datadir,
      chainId: spec.chainId,
      head,
      resumedAt: source.resumedAt,
      accounts,
      readers: plan.readerProcesses,
      upstream: source.upstream,
      fork: source.fork,
      ...(source.publishing === undefined || source.publisherRole === undefined
        ? {}
        : {
            publishing: {
              where: source.publishing,
              id: source.publisherId ?? "",
              role: source.publisherRole.bind(source),
            },
          }),
      failed,
    };
    if (plan.readerProcesses > 1) {
      const fence = live ? PositionFence.create(datadir) : undefined;
      if (fence !== undefined) parts.add(() => fence.close());
      // What the primary itself shows (tests, metrics): the pending block, from the stream.
      let pending: PendingBlock | undefined;
      parts.add(
        stream.subscribe((u) => {
          pending = applyFlashblock(
            u.kind === "sealed" ? undefined : pending,
            u.kind === "sealed" ? u.next : u,
          );
        }),
      );
      const host = await startReaderHost({
        readers: plan.readerProcesses,
        argv: plan.argv,
        env: plan.readerEnv,
        logger,
        stream: live ? stream : undefined,
        fence,
        target: source.target,
        health: sourceHealth,
      });
      parts.add(() => host.close());
      // Each reader logs its listening at debug; the node says it once, before its banner.
      logger.info(
        {
          url: host.url,
          readers: plan.readerProcesses,
          tiers: { public: host.url, dedicated: `${host.url}rpc/<key>` },
        },
        "serving JSON-RPC",
      );
      return {
        ...common,
        url: host.url,
        dedicatedUrl: host.dedicatedUrl,
        wsUrl: host.url.replace(/^http/, "ws"),
        readerPids: host.pids,
        pending: () => pending,
        stats: undefined,
        close: () => parts.stopAll(),
      };
    }
    const reader = await startReader({
      datadir,
      archive,
      spec,
      readOnly: !live,
      frontend: plan.frontend,
      logger,
      view: plan.view,
      callLimits: plan.callLimits,
      forkUpstream: forkUpstreamOf(plan),
      ...(live ? { follow: (apply) => parts.add(stream.subscribe(apply)) } : {}),
      ...(source.target === undefined ? {} : { target: source.target }),
      sourceHealth,
      callWorkerFirst: plan.source.kind === "jetstream",
    });
    parts.add(() => reader.close());
    return {
      ...common,
      url: reader.url,
      dedicatedUrl: reader.dedicatedUrl,
      wsUrl: reader.wsUrl,
      readerPids: () => [process.pid],
      pending: reader.pending,
      stats: reader.stats,
      close: () => parts.stopAll(),
    };
  } catch (e) {
    // A node that cannot start (port in use, …) leaves no worker or lock behind.
    await parts.stopAll();
    throw e;
  }
}

/** Forgets the chain a datadir holds, keeping its upstream cache. */
async function clearChain(datadir: string): Promise<void> {
  if (!existsSync(join(datadir, "archive"))) return;
  const archive = openArchive(datadir, false);
  try {
    archive.store.clearChain();
  } finally {
    await archive.kv.close();
  }
}
