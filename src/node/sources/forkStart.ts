// `dev --fork-url`: what the sequencer starts a forked chain with. A new datadir: the fork block F
// chosen and checked on the upstream, its header, the chain config and the base writes
// (upstream/forkSetup.ts). A datadir that holds the fork already: F and the config from it, and
// from the datadir's cache what the start needs of the upstream, so a restart asks it only whether
// its block at F's number is still F (forkSetup.ts).
import { devAccounts } from "../../chain/devGenesis.ts";
import type { DevL1Config } from "../../chain/op/l1Info.ts";
import type { Logger } from "../../log/logger.ts";
import type { SequencerFork } from "../../sequencer/protocol.ts";
import { createChainStore } from "../../store/chainStore.ts";
import type { StoredForkBase } from "../../store/forkBaseCodec.ts";
import { openKvEnv } from "../../store/lmdb.ts";
import { combineHooks, startRetryNotice, type UpstreamHooks } from "../../upstream/calls.ts";
import { UpstreamClient } from "../../upstream/client.ts";
import { upstreamHost } from "../../upstream/errors.ts";
import { prepareFork } from "../../upstream/forkSetup.ts";
import { FlashnodeError } from "../../util/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import type { DevChainOptions, ForkPlan } from "../plan.ts";

/** A datadir that cannot hold this fork. */
export class ForkDatadirError extends FlashnodeError {
  readonly code = "FORK_DATADIR";
}

export type ForkStart = {
  readonly genesis: Record<string, unknown>;
  readonly fork: SequencerFork;
  readonly base: StoredForkBase | { readonly chainId: bigint; readonly number: number };
  readonly l1: DevL1Config | undefined;
  /** F's gas limit. */
  readonly gasLimit: bigint;
  /** The upstream chain's name, when flashnode knows it. */
  readonly name: string | undefined;
  /** Whether the datadir already held the fork (a restart). */
  readonly resumed: boolean;
};

export async function prepareForkStart(
  datadir: string,
  o: DevChainOptions,
  plan: ForkPlan,
  logger: Logger,
  /** The fork replaces whatever the datadir holds (anvil_reset): it is not read. */
  replace = false,
  /** What the start's upstream client reports its calls to (the node's metrics). */
  hooks: UpstreamHooks = {},
): Promise<ForkStart> {
  const env = openKvEnv(datadir);
  const client = new UpstreamClient(plan.options, {
    logger,
    hooks: combineHooks(hooks, startRetryNotice(logger, upstreamHost(plan.options.url))),
  });
  try {
    const store = createChainStore(env);
    const stored = replace ? undefined : store.forkBase();
    if (!replace && store.headNumber() !== undefined) {
      const chainId = JSON.parse(store.chainConfig() ?? "{}")?.config?.chainId as unknown;
      if (stored === undefined)
        throw new ForkDatadirError(
          `${datadir} holds a chain of its own (chain id ${String(chainId)}), not a fork: use another --datadir, or --fresh to start over`,
        );
      const given = plan.blockNumber;
      if (
        (given !== undefined && given >= 0n && given !== BigInt(stored.number)) ||
        (plan.chainId !== undefined && plan.chainId !== stored.chainId)
      )
        throw new ForkDatadirError(
          `${datadir} holds a fork of chain ${stored.chainId} at block ${stored.number}: use another --datadir, or --fresh to fork anew`,
        );
    }
    // A known F (a restart, or a fork seen before) is found in the datadir: nothing is asked.
    const setup = await prepareFork(
      client,
      env,
      {
        ...(stored === undefined
          ? {
              ...(plan.blockNumber === undefined ? {} : { blockNumber: plan.blockNumber }),
              ...(plan.chainId === undefined ? {} : { chainId: plan.chainId }),
            }
          : { blockNumber: BigInt(stored.number), chainId: stored.chainId }),
        hardfork: o.fork,
        accounts: devAccounts(o.accounts).map((a) => a.address),
        balanceWei: o.balanceEth * 10n ** 18n,
        continuing: stored !== undefined,
      },
      { logger },
    );
    const resumed = stored !== undefined;
    const point = setup.point;
    return {
      genesis: resumed ? JSON.parse(store.chainConfig() ?? "{}") : setup.genesis,
      fork: {
        upstream: plan.options,
        chainId: point.chainId.toString(),
        number: Number(point.number),
        hash: bytesToHex(point.hash),
        ...(resumed
          ? {}
          : {
              base: {
                headerRlp: bytesToHex(setup.headerRlp),
                writes: setup.baseWrites.map((w) => ({
                  address: w.address,
                  ...(w.balance === undefined ? {} : { balance: w.balance.toString() }),
                  ...(w.code === undefined ? {} : { code: w.code }),
                })),
              },
            }),
      },
      base: stored ?? { chainId: point.chainId, number: Number(point.number) },
      l1: setup.l1,
      gasLimit: setup.gasLimit,
      name: setup.name,
      resumed,
    };
  } finally {
    client.close();
    await env.close();
  }
}
