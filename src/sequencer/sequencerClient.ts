// The RPC thread's handle on the sequencer worker, over the one channel (src/util/channel.ts):
// transaction intake, the dev methods, and the stream of flashblocks and seals that keeps the
// pending view current. After start, a sequencer that dies is fatal: the chain would silently
// stop. What waited on it has failed first, with the channel's error; the node is told through
// `onFatal` and stops as a whole (the assembly, src/node/assembly.ts).
import type { Logger } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import type { Channel } from "../util/channel.ts";
import { bytesToHex, bytesToUnprefixedHex } from "../util/hex.ts";
import { OwnedWorker, startWorkerChannel } from "../util/tsWorker.ts";
import type {
  SequencerApi,
  SequencerParentApi,
  SequencerWorkerData,
  Submitted,
} from "./protocol.ts";

/** Intake, mining and dev requests wait this long for the sequencer's queue at most. */
const REQUEST_DEADLINE_MS = 60_000;
/** Stopping waits this long for the sequencer to close its archive (then the thread ends). */
const STOP_DEADLINE_MS = 10_000;

/** What the client learns from the sequencer's events, from its very first one. */
type Heard = {
  readonly poolNonces: Map<string, bigint>;
  onPoolNonce: ((sender: Uint8Array, nextNonce: bigint) => void) | undefined;
  reasons: readonly string[];
  /** What the sequencer's upstream client did (a fork's). */
  upstream: readonly UpstreamSeries[];
};

export class SequencerClient {
  private constructor(
    private readonly worker: OwnedWorker,
    private readonly channel: Channel<SequencerApi, SequencerParentApi>,
    private readonly heard: Heard,
    private readonly logger: Logger,
    /** The head the node started on, when the datadir already held a chain (continued). */
    readonly resumedAt: number | undefined,
  ) {}

  /** Told of each sender's next pool nonce as the pool accepts its transactions. */
  set onPoolNonce(listener: ((sender: Uint8Array, nextNonce: bigint) => void) | undefined) {
    this.heard.onPoolNonce = listener;
  }

  static async start(
    data: SequencerWorkerData,
    onUpdate: (update: FlashblockUpdate | SealedUpdate) => void,
    logger: Logger,
    onFatal: (e: Error) => void,
  ): Promise<SequencerClient> {
    const heard: Heard = {
      poolNonces: new Map(),
      onPoolNonce: undefined,
      reasons: [],
      upstream: [],
    };
    // Listening from the start: the sequencer logs, and publishes the block it opens (or
    // rebuilds after a restart), before it says it is ready.
    const listen = (channel: Channel<SequencerApi, SequencerParentApi>) => {
      channel.on("log", (m) => logger[m.level](m.fields, m.msg));
      channel.on("submitted", (m) => noteSubmitted(heard, logger, m));
      channel.on("health", (m) => {
        heard.reasons = m.reasons;
        heard.upstream = m.upstream ?? [];
      });
      channel.on("update", (update) => {
        // After evm_revert the pool's next nonces are the state's again (what the dropped
        // blocks ran is gone): the next submission tells them anew.
        if (update.kind === "sealed" && update.reverted !== undefined) heard.poolNonces.clear();
        onUpdate(update);
      });
    };
    const { worker, channel, ready } = await startWorkerChannel<
      SequencerApi,
      SequencerParentApi["events"]["ready"],
      SequencerParentApi
    >(
      new URL("./worker.ts", import.meta.url),
      data,
      { peer: "the sequencer", deadlineMs: REQUEST_DEADLINE_MS },
      listen,
    );
    const client = new SequencerClient(
      new OwnedWorker(worker, channel.whenGone(), onFatal),
      channel,
      heard,
      logger,
      ready.resumed ? ready.head : undefined,
    );
    return client;
  }

  async submit(raw: Uint8Array): Promise<{ hash: string }> {
    const taken = await this.channel.request("submit", raw);
    noteSubmitted(this.heard, this.logger, taken);
    return { hash: taken.hash };
  }

  /** Seals the block being built now; resolves with its number once the update has arrived. */
  mine(): Promise<number> {
    return this.channel.request("mine", null);
  }

  /** What the pool holds (src/sequencer/poolContent.ts). */
  poolContent(): Promise<PoolContent> {
    return this.channel.request("pool", null);
  }

  /** A dev method's request (src/sequencer/devRequests.ts). */
  control(request: DevRequest): Promise<DevAnswer> {
    return this.channel.request("control", request);
  }

  /** Why the sequencer's node is not ready (its NATS unreachable); empty: ready. */
  readiness(): string[] {
    return [...this.heard.reasons];
  }

  /** What the sequencer's upstream client did so far (a fork's; metrics). */
  upstreamCalls(): readonly UpstreamSeries[] {
    return this.heard.upstream;
  }

  /** Every sender's next pool nonce (what a new RPC reader starts from). */
  poolNonceEntries(): Array<readonly [string, bigint]> {
    return [...this.heard.poolNonces];
  }

  poolNonce(address: Uint8Array): bigint | undefined {
    return this.heard.poolNonces.get(bytesToUnprefixedHex(address));
  }

  stop(): Promise<void> {
    return this.worker.stop(() => this.channel.request("stop", null, STOP_DEADLINE_MS));
  }
}

/** A transaction the pool took: its sender's next pool nonce, and the log line. */
function noteSubmitted(heard: Heard, logger: Logger, m: Submitted): void {
  const key = bytesToUnprefixedHex(m.sender);
  const known = heard.poolNonces.get(key);
  if (known === undefined || m.nextNonce > known) {
    heard.poolNonces.set(key, m.nextNonce);
    heard.onPoolNonce?.(m.sender, m.nextNonce);
  }
  logger.info(
    { hash: m.hash, from: bytesToHex(m.sender), nonce: Number(m.nonce) },
    "transaction received",
  );
}
