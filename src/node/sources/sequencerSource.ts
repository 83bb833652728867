// `dev`'s chain source: a local sequencer on its worker thread builds the chain into the
// archive and publishes every flashblock and seal (src/sequencer/). A new datadir gets the dev
// genesis (an OP-stack chain like Base unless --ethereum) or the --genesis given; an existing
// one is continued.
import { devAccounts, devGenesis } from "../../chain/devGenesis.ts";
import { devL1Values } from "../../chain/op/l1Info.ts";
import { opPredeploys } from "../../chain/op/predeploys.ts";
import type { Logger } from "../../log/logger.ts";
import type { ChainUpdate } from "../../pending/types.ts";
import { SequencerClient } from "../../sequencer/sequencerClient.ts";
import { upstreamHost } from "../../upstream/errors.ts";
import { hexToBytes } from "../../util/hex.ts";
import type { ChainSource, DevChainOptions, PoolNonces } from "../plan.ts";
import { prepareForkStart } from "./forkStart.ts";

/** Base's SequencerFeeVault: where a Base block's fees go. */
const FEE_RECIPIENT = "0x4200000000000000000000000000000000000011";

export async function startSequencerSource(args: {
  readonly datadir: string;
  readonly chain: DevChainOptions;
  readonly logger: Logger;
  readonly publish: (u: ChainUpdate) => void;
}): Promise<ChainSource> {
  const o = args.chain;
  const forked =
    o.upstream === undefined
      ? undefined
      : await prepareForkStart(args.datadir, o, o.upstream, args.logger);
  const genesis = forked?.genesis ?? o.genesis ?? (await newDevGenesis(o));
  // A fork's L1 fee values are its upstream's (its L1Block at F); its gas limit F's unless given.
  const l1 = forked === undefined ? o.l1 : (forked.l1 ?? o.l1);
  const gasLimit = forked !== undefined && !o.gasLimitGiven ? forked.gasLimit : o.gasLimit;
  const sequencer = await SequencerClient.start(
    {
      datadir: args.datadir,
      genesis,
      genesisGiven: o.genesis !== undefined,
      blockTimeMs: o.blockTimeMs,
      flashblockIntervalMs: o.flashblockIntervalMs,
      gasLimit: gasLimit.toString(),
      coinbase: FEE_RECIPIENT,
      l1: {
        baseFee: l1.baseFee.toString(),
        blobBaseFee: l1.blobBaseFee.toString(),
        baseFeeScalar: l1.baseFeeScalar,
        blobBaseFeeScalar: l1.blobBaseFeeScalar,
      },
      ...(forked === undefined ? {} : { fork: forked.fork }),
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
    ...(forked === undefined || o.upstream === undefined
      ? {}
      : {
          fork: {
            host: upstreamHost(o.upstream.options.url),
            chainId: forked.base.chainId,
            number: forked.base.number,
            ...(forked.name === undefined ? {} : { name: forked.name }),
          },
        }),
    readiness: () => sequencer.readiness(),
    close: () => sequencer.stop(),
  };
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
