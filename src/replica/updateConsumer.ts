// A replica's pending view follows the flashblock stream with the sequencer's rules: an update
// applies once the replica's archive holds the block it builds on (a flashblock for a block not
// sealed here yet waits for the block stream); one for a block already sealed past is dropped;
// a flashblock that does not continue the pending block (a gap) is dropped until the next index 0
// (carried by a seal), so pending never shows a block with a hole in it.
import { DeliverPolicy } from "@nats-io/jetstream";
import type { Logger } from "../log/logger.ts";
import { type ChainUpdate, updatePosition } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { pause } from "../util/abort.ts";
import { equalBytes } from "../util/hex.ts";
import { decodeChainUpdate } from "./codec.ts";
import type { NatsLink } from "./natsLink.ts";
import { PART_HEADER, PartJoiner } from "./parts.ts";
import { watchForStall } from "./stallWatchdog.ts";
import { HEADER, type StreamNames } from "./streams.ts";

/** How far back a starting replica reads the flashblock stream: the current block's updates. */
const CATCH_UP_MS = 3_000;
/** Updates kept while the archive waits for the block stream (about a minute of flashblocks). */
const MAX_WAITING = 300;
/** A consumer silent this long while the stream holds newer updates is created anew. */
const STALL_MS = 2_000;

export type UpdateConsumer = {
  /** The archive has a new head: updates waiting for it may apply now. */
  blockStored(): void;
  close(): Promise<void>;
};

export function consumeUpdates(opts: {
  readonly link: NatsLink;
  readonly names: StreamNames;
  readonly store: ChainStore;
  /** Where the updates that apply go (the node's update stream). */
  readonly publish: (u: ChainUpdate) => void;
  readonly logger: Logger;
}): UpdateConsumer {
  const { link, names, store, logger } = opts;
  const waiting: ChainUpdate[] = [];
  let closed = false;
  /** Aborted by close(): the loop's waits (a connection, a retry's pause) end at once. */
  const closing = new AbortController();
  let stop: () => void = () => {};
  // The pending block the last published update built, and that update's position.
  let last: { readonly block: number; readonly position: number } | undefined;
  const publish = (u: ChainUpdate) => {
    const fb = u.kind === "flashblock" ? u : u.next;
    last = { block: fb.base.number, position: updatePosition(u) };
    opts.publish(u);
  };

  const continues = (u: ChainUpdate): boolean => {
    if (u.kind === "sealed" || u.index === 0) return true;
    return last?.block === u.base.number && updatePosition(u) === last.position + 1;
  };
  /** An evm_revert's update waits while the archive still holds a block it dropped. */
  const holdsDropped = (u: ChainUpdate): boolean => {
    if (u.kind !== "sealed" || u.reverted === undefined) return false;
    const first = u.reverted.blocks[0];
    const ours = first === undefined ? undefined : store.canonicalHash(first.blockNumber);
    return ours !== undefined && first !== undefined && equalBytes(ours, first.blockHash);
  };
  const drain = () => {
    const head = store.headNumber() ?? -1;
    while (waiting.length > 0) {
      const u = waiting[0]!;
      const builtOn = u.kind === "sealed" ? u.number : u.base.number - 1;
      if (builtOn > head || holdsDropped(u)) return;
      waiting.shift();
      if (builtOn < head || !continues(u)) continue;
      publish(u);
    }
  };

  let failing = false;
  let lastSequence = 0;
  // After a reconnection the server may have lost the consumer: start a new one. Also when it
  // goes quiet without an error while the stream moves on (its stream's leader died in a
  // cluster and the survivors elected another).
  link.onReconnect(() => stop());
  const watchdog = watchForStall({
    link,
    stallMs: STALL_MS,
    behind: async (c) =>
      (await c.jsm.streams.info(names.flashblocks)).state.last_seq > lastSequence,
    restart: () => stop(),
  });
  const loop = (async () => {
    while (!closed) {
      const startTime = new Date(Date.now() - CATCH_UP_MS);
      try {
        const c = await link.ready(closing.signal);
        const consumer = await c.js.consumers.get(names.flashblocks, {
          deliver_policy: DeliverPolicy.StartTime,
          opt_start_time: startTime.toISOString(),
        });
        const messages = await consumer.consume();
        stop = () => messages.stop();
        if (closed) break;
        const joiner = new PartJoiner();
        for await (const m of messages) {
          watchdog.seen();
          lastSequence = m.seq;
          // An update sent in parts (a large seal) is decoded once its last part is in.
          const payload = joiner.add(m.headers?.get(PART_HEADER), m.data);
          if (payload === undefined) continue;
          waiting.push(decodeChainUpdate(payload, m.headers?.get(HEADER.format)));
          // Bounded: a block stream that stalls must not make this queue grow for ever.
          if (waiting.length > MAX_WAITING) waiting.splice(0, waiting.length - MAX_WAITING);
          drain();
          failing = false;
        }
      } catch (e) {
        if (closed) break;
        if (!failing)
          logger.warn({ err: e }, "following the flashblock stream failed; retrying every second");
        failing = true;
        await pause(1000, closing.signal);
      }
    }
  })();
  return {
    blockStored: drain,
    async close() {
      closed = true;
      closing.abort();
      watchdog.stop();
      stop();
      await loop;
    },
  };
}
