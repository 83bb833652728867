// The main thread's handle on the follower thread, over the one channel: the stream of seals and
// flashblocks it publishes, and its health. A follower that dies is fatal, as a sequencer is:
// the node is told through `onFatal` and stops as a whole.
import type { Logger } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { Channel } from "../util/channel.ts";
import { OwnedWorker, startWorkerChannel } from "../util/tsWorker.ts";
import type {
  FollowerApi,
  FollowerHealth,
  FollowerParentApi,
  FollowerWorkerData,
} from "./protocol.ts";

/**
 * Stopping waits this long for the follower to close its archive, then the thread ends: a node
 * stops within 5 s whatever its upstream does (the follower aborts what waits on it at once).
 */
const STOP_DEADLINE_MS = 3_000;

export class FollowerClient {
  private constructor(
    private readonly worker: OwnedWorker,
    private readonly channel: Channel<FollowerApi, FollowerParentApi>,
    private readonly heard: { health: FollowerHealth },
    /** The head the node started on, when the datadir already held the followed chain. */
    readonly resumedAt: number | undefined,
  ) {}

  static async start(
    data: FollowerWorkerData,
    onUpdate: (update: FlashblockUpdate | SealedUpdate) => void,
    logger: Logger,
    onFatal: (e: Error) => void,
  ): Promise<FollowerClient> {
    const heard = {
      health: {
        reasons: ["the follower is starting"],
        lagBlocks: 0,
        events: {},
        imported: { blocks: 0, fromReplay: 0, gas: "0", ms: 0 },
        stream: {
          connected: false,
          connects: 0,
          reconnects: 0,
          disconnects: {},
          readTimeouts: 0,
          pingsMissed: 0,
          frames: 0,
          flashblocks: 0,
          invalid: 0,
          bytes: 0,
          lastFrameAt: undefined,
        },
      } as FollowerHealth,
    };
    const { worker, channel, ready } = await startWorkerChannel<
      FollowerApi,
      FollowerParentApi["events"]["ready"],
      FollowerParentApi
    >(
      new URL("./worker.ts", import.meta.url),
      data,
      { peer: "the follower", deadlineMs: 0 },
      (ch) => {
        ch.on("log", (m) => logger[m.level](m.fields, m.msg));
        ch.on("update", onUpdate);
        ch.on("health", (h) => {
          heard.health = h;
        });
      },
    );
    const client = new FollowerClient(
      new OwnedWorker(worker, channel.whenGone(), onFatal),
      channel,
      heard,
      ready.resumed ? ready.head : undefined,
    );
    return client;
  }

  get health(): FollowerHealth {
    return this.heard.health;
  }

  stop(): Promise<void> {
    return this.worker.stop(() => this.channel.request("stop", null, STOP_DEADLINE_MS));
  }
}
