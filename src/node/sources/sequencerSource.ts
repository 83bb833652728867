// `dev`'s chain source: a local sequencer on its worker thread builds the chain into the
// archive and publishes every flashblock and seal (src/sequencer/). A new datadir gets the dev
// genesis (an OP-stack chain like Base unless --ethereum) or the --genesis given; an existing
// one is continued.
import { writeFileSync } from "node:fs";
import { anvilStateJson } from "../../chain/anvilState.ts";
import type { Logger } from "../../log/logger.ts";
import { type ChainReset, type ChainUpdate, updatePosition } from "../../pending/types.ts";
import type { SequencerWorkerData } from "../../sequencer/protocol.ts";
import { SequencerClient } from "../../sequencer/sequencerClient.ts";
import type { DevAnswer, DevRequest } from "../../services/transactions.ts";
import {
  mergeUpstreamSeries,
  UpstreamCallStats,
  type UpstreamSeries,
} from "../../upstream/callStats.ts";
import { upstreamHost } from "../../upstream/errors.ts";
import { upstreamOptions } from "../../upstream/options.ts";
import { RpcError } from "../../util/errors.ts";
import type { ChainSource, DevChainOptions, ForkInfo, PoolNonces } from "../plan.ts";
import { prepareForkStart } from "./forkStart.ts";

/** Base's SequencerFeeVault: where a Base block's fees go. */
const FEE_RECIPIENT = "0x4200000000000000000000000000000000000011";

export async function startSequencerSource(args: {
  readonly datadir: string;
  readonly chain: DevChainOptions;
  readonly logger: Logger;
  readonly publish: (u: ChainUpdate) => void;
  /** The sequencer's thread ended by itself: the node cannot go on. */
  readonly onFatal: (e: Error) => void;
}): Promise<ChainSource> {
  let o = args.chain;
  /** The stream's last position: a replacing sequencer goes on after it. */
  let position = 0;
  /**
   * Set by anvil_reset: the replacing sequencer's first update says the chain was replaced, and
   * the reset is answered once it is out.
   */
  let replacing: { readonly reset: ChainReset; readonly published: () => void } | undefined;
  /** What this thread's upstream clients did (a fork's start and resets; metrics). */
  const startCalls = new UpstreamCallStats();
  /** What the sequencers replaced by anvil_reset did with their upstream (metrics never go back). */
  let retiredCalls: readonly UpstreamSeries[] = [];
  const publish = (u: ChainUpdate) => {
    position = Math.max(position, updatePosition(u));
    const r = replacing;
    replacing = undefined;
    if (r === undefined) return args.publish(u);
    const reset = r.reset;
    const next = u.kind === "sealed" ? u.next : u;
    args.publish({
      kind: "sealed",
      number: next.base.number - 1,
      hash: next.base.parentHash,
      next,
      reverted: { blocks: [], pending: undefined },
      reset,
    });
    r.published();
  };
  /** What a sequencer for `chain` starts with: asks the upstream, if any; starts nothing. */
  const prepare = async (chain: DevChainOptions, replace: boolean) => {
    const forked =
      chain.upstream === undefined
        ? undefined
        : await prepareForkStart(
            args.datadir,
            chain,
            chain.upstream,
            args.logger,
            replace,
            startCalls.hooks,
          );
    // Neither a fork's nor --genesis: the sequencer's thread makes a new dev chain's, when its
    // datadir holds none (a restart never pays for it).
    const genesis = forked?.genesis ?? chain.genesis;
    // A fork's L1 fee values are its upstream's (its L1Block at F); its gas limit F's unless given.
    const l1 = forked?.l1 ?? chain.l1;
    const gasLimit =
      forked !== undefined && !chain.gasLimitGiven ? forked.gasLimit : chain.gasLimit;
    const data: SequencerWorkerData = {
      datadir: args.datadir,
      logLevel: args.logger.level,
      ...(genesis === undefined ? {} : { genesis }),
      genesisGiven: chain.genesis !== undefined,
      chainIdGiven: chain.chainIdGiven === true,
      newChain: {
        chainId: chain.chainId,
        fork: chain.fork,
        ethereum: chain.ethereum,
        l1: chain.l1,
        gasLimit: chain.gasLimit,
        accounts: chain.accounts,
        balanceEth: chain.balanceEth,
      },
      blockTimeMs: chain.blockTimeMs,
      automine: chain.automine === true,
      flashblockIntervalMs: chain.flashblockIntervalMs,
      gasLimit: gasLimit.toString(),
      coinbase: FEE_RECIPIENT,
      l1: {
        baseFee: l1.baseFee.toString(),
        blobBaseFee: l1.blobBaseFee.toString(),
        baseFeeScalar: l1.baseFeeScalar,
        blobBaseFeeScalar: l1.blobBaseFeeScalar,
      },
      ...(forked === undefined ? {} : { fork: forked.fork }),
      ...(chain.nats === undefined
        ? {}
        : {
            nats: {
              servers: chain.nats.servers,
              streams: chain.nats.streams,
            },
          }),
    };
    const info: ForkInfo | undefined =
      forked === undefined || chain.upstream === undefined
        ? undefined
        : {
            host: upstreamHost(chain.upstream.options.url),
            chainId: forked.base.chainId,
            number: forked.base.number,
            ...(forked.name === undefined ? {} : { name: forked.name }),
          };
    return { data, info };
  };
  const launch = (data: SequencerWorkerData) =>
    SequencerClient.start(data, publish, args.logger.child({ module: "sequencer" }), args.onFatal);
  const first = await prepare(o, false);
  let sequencer = await launch(first.data);
  let info = first.info;
  let poolListener: ((sender: Uint8Array, nextNonce: bigint) => void) | undefined;
  if (o.loadState !== undefined) {
    // As anvil's --load-state: the state is the chain's `latest` once the node serves.
    await sequencer.control({ op: "loadState", state: o.loadState });
    if (o.automine !== true) await sequencer.mine();
    args.logger.info({ accounts: o.loadState.accounts.length }, "state loaded");
  }
  const poolNonces: PoolNonces = {
    get: (address) => sequencer.poolNonce(address),
    entries: () => sequencer.poolNonceEntries(),
    onChange(listener) {
      poolListener = listener;
      sequencer.onPoolNonce = listener;
    },
  };
  /** anvil_reset: a new chain (a fork, or a dev chain of its own) replaces this one. */
  let resets: Promise<unknown> = Promise.resolve();
  const reset = (request: Extract<DevRequest, { op: "reset" }>): Promise<DevAnswer> => {
    const run = async (): Promise<DevAnswer> => {
      const chain = resetChain(o, request);
      // What the upstream must answer is asked first: a fork that cannot start (an unreachable
      // upstream, a block it lacks) leaves the chain as it was. Then the old sequencer stops
      // (its queue drained), and the new one replaces the archive's chain in one write and goes
      // on after the stream's last position.
      const next = await prepare(chain, true);
      await sequencer.stop();
      retiredCalls = mergeUpstreamSeries([retiredCalls, sequencer.upstreamCalls()]);
      const published = new Promise<void>((resolve) => {
        replacing = {
          reset:
            chain.upstream === undefined
              ? {}
              : {
                  fork: {
                    url: chain.upstream.options.url,
                    headers: chain.upstream.options.headers,
                  },
                },
          published: resolve,
        };
      });
      sequencer = await launch({ ...next.data, replace: { position } });
      // The new chain's first update carries the reset to every reader before the answer goes.
      await published;
      if (poolListener !== undefined) sequencer.onPoolNonce = poolListener;
      info = next.info;
      o = chain;
      if (info === undefined)
        args.logger.info({ chainId: Number(chain.chainId) }, "anvil_reset: a new dev chain");
      else
        args.logger.info(
          { upstream: info.host, chainId: Number(info.chainId), block: info.number },
          "anvil_reset: forked anew",
        );
      return {};
    };
    const done = resets.then(run, run);
    resets = done.catch(() => undefined);
    return done;
  };
  return {
    target: {
      submit: (raw) => sequencer.submit(raw),
      mine: () => sequencer.mine(),
      poolContent: () => sequencer.poolContent(),
      control: (request) => (request.op === "reset" ? reset(request) : sequencer.control(request)),
      poolNonces,
    },
    resumedAt: sequencer.resumedAt,
    ...(o.nats === undefined
      ? {}
      : { upstream: { label: "NATS JetStream", url: o.nats.servers.join(",") } }),
    ...(info === undefined ? {} : { fork: info }),
    readiness: () => sequencer.readiness(),
    upstreamCalls: () =>
      mergeUpstreamSeries([startCalls.snapshot(), retiredCalls, sequencer.upstreamCalls()]),
    async close() {
      if (o.dumpState !== undefined) await dumpStateFile(sequencer, o.dumpState, args.logger);
      await sequencer.stop();
    },
  };
}

/** --dump-state at exit: the chain's state as anvil's file (a failure is logged, not fatal). */
async function dumpStateFile(
  sequencer: SequencerClient,
  path: string,
  logger: Logger,
): Promise<void> {
  try {
    const { state } = await sequencer.control({ op: "dumpState" });
    if (state === undefined) return;
    writeFileSync(path, anvilStateJson(state));
    logger.info({ path, accounts: state.accounts.length }, "state dumped");
  } catch (e) {
    logger.error({ path, err: (e as Error).message }, "state not dumped");
  }
}

/** The chain anvil_reset asks for: a fork (of the current upstream unless another is named). */
function resetChain(
  o: DevChainOptions,
  request: Extract<DevRequest, { op: "reset" }>,
): DevChainOptions {
  if (request.fork === undefined) {
    const { upstream: _, ...own } = o;
    return own;
  }
  const url = request.fork.url ?? o.upstream?.options.url;
  if (url === undefined)
    throw new DevRequestRefused(
      "anvil_reset: forking needs a jsonRpcUrl (this chain is not a fork)",
    );
  return {
    ...o,
    upstream: {
      options: upstreamOptions(url, o.upstream?.options ?? {}),
      ...(request.fork.blockNumber === undefined ? {} : { blockNumber: request.fork.blockNumber }),
    },
  };
}

/** A reset the node cannot carry out (the JSON-RPC answer says why). */
export class DevRequestRefused extends RpcError {
  override readonly code = "DEV_REQUEST";
  constructor(message: string) {
    super(-32602, message);
  }
}
