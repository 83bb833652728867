// `dev`'s chain source: a local sequencer on its worker thread builds the chain into the
// archive and publishes every flashblock and seal (src/sequencer/). A new datadir gets the dev
// genesis (an OP-stack chain like Base unless --ethereum) or the --genesis given; an existing
// one is continued.
import type { Logger } from "../../log/logger.ts";
import type { ChainUpdate } from "../../pending/types.ts";
import { SequencerClient } from "../../sequencer/sequencerClient.ts";
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
  const sequencer = await SequencerClient.start(
    {
      datadir: args.datadir,
      ...(o.genesis === undefined ? {} : { genesis: o.genesis }),
      newChain: {
        chainId: o.chainId,
        fork: o.fork,
        ethereum: o.ethereum,
        l1: o.l1,
        gasLimit: o.gasLimit,
        accounts: o.accounts,
        balanceEth: o.balanceEth,
      },
      blockTimeMs: o.blockTimeMs,
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
    close: () => sequencer.stop(),
  };
}
