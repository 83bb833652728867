// `dev`'s chain source: a local sequencer on its worker thread builds the chain into the
// archive and publishes every flashblock and seal (src/sequencer/). A new datadir gets the dev
// genesis (an OP-stack chain like Base unless --ethereum) or the --genesis given; an existing
// one is continued.
import { writeFileSync } from "node:fs";
import { anvilStateJson } from "../../chain/anvilState.ts";
import { devAccounts, devGenesis } from "../../chain/devGenesis.ts";
import { devL1Values } from "../../chain/op/l1Info.ts";
import { opPredeploys } from "../../chain/op/predeploys.ts";
import type { Logger } from "../../log/logger.ts";
import type { ChainUpdate } from "../../pending/types.ts";
import { SequencerClient } from "../../sequencer/sequencerClient.ts";
import { hexToBytes } from "../../util/hex.ts";
import type { ChainSource, DevChainOptions, PoolNonces } from "../plan.ts";

/** Base's SequencerFeeVault: where a Base block's fees go. */
const FEE_RECIPIENT = "0x4200000000000000000000000000000000000011";

export async function startSequencerSource(args: {
  readonly datadir: string;
  readonly chain: DevChainOptions;
  readonly logger: Logger;
  readonly publish: (u: ChainUpdate) => void;
}): Promise<ChainSource> {
  const o = args.chain;
  const genesis = o.genesis ?? (await newDevGenesis(o));
  const sequencer = await SequencerClient.start(
    {
      datadir: args.datadir,
      genesis,
      genesisGiven: o.genesis !== undefined,
      blockTimeMs: o.blockTimeMs,
      automine: o.automine === true,
      flashblockIntervalMs: o.flashblockIntervalMs,
      gasLimit: o.gasLimit.toString(),
      coinbase: FEE_RECIPIENT,
      l1: {
        baseFee: o.l1.baseFee.toString(),
        blobBaseFee: o.l1.blobBaseFee.toString(),
        baseFeeScalar: o.l1.baseFeeScalar,
        blobBaseFeeScalar: o.l1.blobBaseFeeScalar,
      },
      ...(o.nats === undefined
        ? {}
        : {
            nats: {
              servers: o.nats.servers,
              streams: o.nats.streams,
              logLevel: args.logger.level,
            },
          }),
    },
    args.publish,
    args.logger.child({ module: "sequencer" }),
  );
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
      sequencer.onPoolNonce = listener;
    },
  };
  return {
    target: {
      submit: (raw) => sequencer.submit(raw),
      mine: () => sequencer.mine(),
      poolContent: () => sequencer.poolContent(),
      control: (request) => sequencer.control(request),
      poolNonces,
    },
    resumedAt: sequencer.resumedAt,
    ...(o.nats === undefined
      ? {}
      : { upstream: { label: "NATS JetStream", url: o.nats.servers.join(",") } }),
    readiness: () => sequencer.readiness(),
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

/** A new dev chain's genesis: the test accounts funded, and Base's predeploys on an OP chain. */
async function newDevGenesis(o: DevChainOptions): Promise<Record<string, unknown>> {
  const accounts = devAccounts(o.accounts);
  const timestamp = BigInt(Math.floor(Date.now() / 1000));
  return devGenesis({
    chainId: o.chainId,
    fork: o.fork,
    accounts,
    balanceWei: o.balanceEth * 10n ** 18n,
    gasLimit: o.gasLimit,
    timestamp,
    ...(o.ethereum
      ? {}
      : {
          op: await opPredeploys(
            devL1Values(o.l1, timestamp),
            hexToBytes(accounts[0]?.address ?? `0x${"00".repeat(20)}`),
          ),
        }),
  });
}
