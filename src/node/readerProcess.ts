// A --rpc-workers reader process: the primary runs the chain source; this process joins it over
// the one channel, opens the archive, and runs the same reader the primary would run itself,
// fed the same updates. It ends with its primary.
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { FlashnodeError } from "../util/errors.ts";
import { forkUpstreamOf, type NodePlan, type PoolNonces, type RunningNode } from "./plan.ts";
import { PositionFence } from "./positionFence.ts";
import { joinPrimary, type PoolNonceMap } from "./primaryJoin.ts";
import { type ReaderTarget, startReader } from "./reader.ts";
import { connectToPrimary } from "./readerLink.ts";
import type { SourceHealth } from "./readerProtocol.ts";
import { openArchive } from "./sources/archiveSource.ts";
import { UpdateStream } from "./updateStream.ts";

/** This reader's primary is gone: the node it served is stopping or has died. */
export class PrimaryGoneError extends FlashnodeError {
  readonly code = "PRIMARY_GONE";
}

export async function startReaderProcess(
  plan: NodePlan,
  { slot, count }: { readonly slot: number; readonly count: number },
): Promise<RunningNode> {
  const link = connectToPrimary(count, slot);
  // Updates land in a stream of this process's own: the reader subscribes when it is ready,
  // from the block so far, whatever arrived meanwhile.
  const stream = new UpdateStream();
  const nonces: PoolNonceMap = new Map();
  const relayListeners: Array<(lagMs: number) => void> = [];
  let health: SourceHealth = { reasons: [] };
  link.onHealth((h) => {
    health = h;
  });
  const joined = await joinPrimary(link, stream, nonces, (lagMs) => {
    for (const l of relayListeners) l(lagMs);
  });
  health = joined.health;

  const live = plan.source.kind !== "archive";
  const archive = openArchive(plan.datadir, !live);
  const config = archive.store.chainConfig();
  if (config === undefined) throw new Error("the chain source has not written the chain config");
  const spec = await chainSpecFromGenesis(JSON.parse(config));
  const poolNonces: PoolNonces = {
    get: (address) => nonces.get(Buffer.from(address).toString("hex")),
    entries: () => [...nonces],
    onChange: () => {},
  };
  const serves = joined.serves;
  const target: ReaderTarget | undefined = serves.transactions
    ? {
        submit: (raw) => link.submit(raw),
        mine: () => link.mine(),
        ...(serves.pool ? { poolContent: () => link.poolContent() } : {}),
        ...(serves.control ? { control: (r) => link.control(r) } : {}),
        poolNonces,
        settle: () => link.settle(),
      }
    : undefined;
  const fence = live ? PositionFence.open(plan.datadir) : undefined;
  const reader = await startReader({
    datadir: plan.datadir,
    archive,
    spec,
    readOnly: !live,
    frontend: plan.frontend,
    logger: plan.logger,
    view: plan.view,
    callLimits: plan.callLimits,
    forkUpstream: forkUpstreamOf(plan),
    ...(live ? { follow: (apply) => stream.subscribe(apply) } : {}),
    ...(target === undefined ? {} : { target }),
    sourceHealth: () => health,
    callWorkerFirst: plan.source.kind === "jetstream",
    link,
    ...(fence === undefined ? {} : { fence }),
    recordsBuilds: slot === 0,
    slot,
    onRelay: (l) => relayListeners.push(l),
  });
  link.listening(reader.url, reader.dedicatedUrl);
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await reader.close();
      link.close();
      fence?.close();
      await archive.kv.close();
    })();
    return closing;
  };
  // Without its primary the node is gone: so is this reader (the CLI stops it, quietly: the
  // primary has said why).
  const failed = link.whenGone().then((e) => new PrimaryGoneError(e.message, { cause: e }));
  return {
    process: "reader",
    role: plan.role,
    datadir: plan.datadir,
    url: reader.url,
    dedicatedUrl: reader.dedicatedUrl,
    wsUrl: reader.wsUrl,
    chainId: spec.chainId,
    head: archive.store.headNumber() ?? 0,
    resumedAt: undefined,
    accounts: [],
    readers: count,
    readerPids: () => [process.pid],
    upstream: undefined,
    fork: undefined,
    pending: reader.pending,
    stats: reader.stats,
    failed,
    close,
  };
}
