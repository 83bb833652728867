// The sequencer's side of replication (`dev --nats URL`): every sealed block to the block stream,
// after its LMDB commit and read back from the archive, and every flashblock to the flashblock
// stream; replicas' transactions answered over request/reply. NATS never holds the sequencer
// up: flashblocks are sent without waiting, and blocks by a loop that keeps only "the next block
// to publish" (the archive holds the rest), so an outage costs nothing but a catch-up.

import { randomUUID } from "node:crypto";
import type { Logger } from "../log/logger.ts";
import { type ChainUpdate, updatePosition } from "../pending/types.ts";
import type { ChainStore } from "../store/chainStore.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { blockMessageFromStore, chainOrigin } from "./blockMessage.ts";
import { blockMessageId, forkPoint, REVERT_HEADER } from "./chainFork.ts";
import { encodeMessage, FORMAT } from "./codec.ts";
import { type NatsContext, type NatsLink, openNatsLink } from "./natsLink.ts";
import { partHeader, splitPayload } from "./parts.ts";
import { startSnapshotter } from "./snapshots.ts";
import { HEADER, type StreamOptions, streamNames } from "./streams.ts";
import { answerTransactions, type TransactionTarget } from "./txForwarding.ts";

export type PublisherStatus = {
  readonly connected: boolean;
  /** The newest block the block stream acknowledged (undefined before the first). */
  readonly publishedBlock: number | undefined;
  readonly flashblocksPublished: number;
  readonly flashblocksDropped: number;
};

export type Publisher = {
  /** Each sequencer update, in order (the dev node's update handler). */
  onUpdate(u: ChainUpdate): void;
  /**
   * A block was just committed: publish it now, before the sequencer opens the next block and
   * builds, records and sends its flashblock 0 (a replica applies that seal only once it holds
   * the block).
   */
  blockCommitted(): void;
  status(): PublisherStatus;
  /** Why publishing is not possible now (NATS unreachable); undefined: it is. */
  unreachable(): string | undefined;
  close(): Promise<void>;
};

/** The largest message the server takes (its max_payload; NATS's default when it did not say). */
function maxPayload(c: NatsContext): number {
  return c.nc.info?.max_payload ?? 1024 * 1024;
}

export function startPublisher(opts: {
  readonly servers: readonly string[];
  readonly store: ChainStore;
  readonly streams: StreamOptions;
  readonly sequencer: TransactionTarget;
  readonly logger: Logger;
}): Publisher {
  const log = opts.logger.child({ module: "nats" });
  const names = streamNames(opts.streams.prefix);
  const link: NatsLink = openNatsLink(opts.servers, "flashnode-sequencer", log);
  let closed = false;
  /** Aborted by close(): a wait for a connection ends at once. */
  const closing = new AbortController();
  let next: number | undefined;
  let published: number | undefined;
  let flashblocksPublished = 0;
  let flashblocksDropped = 0;
  let failing = false;
  let wake: () => void = () => {};
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const snapshots = startSnapshotter({
    link,
    names,
    env: opts.store.env,
    every: opts.streams.snapshotEveryBlocks,
    replicas: opts.streams.replicas,
    logger: log,
  });

  const stopAnswering = link.whenConnected((nc) =>
    answerTransactions(nc, names, opts.sequencer, log),
  );

  // Streams are checked once per connection (and again after any failure), not per block: each
  // check is two JetStream API round trips on the seal's path to replicas.
  let ensuredOn: NatsContext | undefined;
  link.onReconnect(() => {
    ensuredOn = undefined;
  });
  /** evm_revert: the block the chain went back to, each told to the stream once (an id each). */
  const reverts: Array<{ number: number; id: string }> = [];
  /** Publishes block `number` again as the chain's new head (chainFork.ts). */
  async function publishRevert(c: NatsContext, number: number, id: string): Promise<void> {
    const m = blockMessageFromStore(opts.store, number);
    if (m === undefined) throw new Error(`block ${number} is the head but not stored`);
    await publishBlockMessage(c, number, encodeMessage(m), blockMessageId(number, m.hash, id), {
      [REVERT_HEADER]: "1",
    });
    next = number + 1;
    published = number;
  }
  let genesis: string | undefined;
  const genesisHex = () => {
    genesis ??= bytesToUnprefixedHex(chainOrigin(opts.store) ?? new Uint8Array(32));
    return genesis;
  };
  /**
   * One block message, in parts when it is larger than the server takes (parts.ts): each part
   * acknowledged before the next, so they are consecutive in the stream; the last one carries
   * the message's id (what readers look a block up by), the others that id and their index.
   */
  async function publishBlockMessage(
    c: NatsContext,
    number: number,
    payload: Uint8Array,
    msgID: string,
    extra: Readonly<Record<string, string>>,
  ): Promise<void> {
    const parts = splitPayload(payload, maxPayload(c));
    for (let i = 0; i < parts.length; i++) {
      const last = i === parts.length - 1;
      await c.js.publish(names.blockSubject(number), parts[i], {
        msgID: last ? msgID : `${msgID}:part:${i}`,
        headers: c.headers({
          [HEADER.format]: FORMAT,
          [HEADER.block]: String(number),
          [HEADER.genesis]: genesisHex(),
          ...extra,
          ...partHeader(i, parts.length),
        }),
      });
    }
  }

  async function publishBlocks(): Promise<void> {
    const c = await link.ready(closing.signal);
    if (ensuredOn !== c) {
      await c.ensureStreams(names, opts.streams);
      ensuredOn = c;
    }
    // Sealed by the sequencer's thread: this thread's read snapshot must see its commits.
    opts.store.env.refresh();
    if (next === undefined) {
      const last = await c.lastBlock(names);
      // An empty stream starts at the chain's first block: 0, or a forked chain's F.
      next = last === undefined ? (opts.store.forkBase()?.number ?? 0) : last + 1;
      published = last;
      // The stream may hold blocks the archive dropped (a revert told to no one before a crash):
      // it goes back to the last block both have.
      const head = opts.store.headNumber();
      if (last !== undefined && head !== undefined) {
        const fork = await forkPoint(c, names, opts.store, Math.min(last, head));
        if (fork !== undefined && fork.number < last) {
          log.warn(
            { block: fork.number, stream: last },
            "the block stream goes back to this archive's chain",
          );
          await publishRevert(c, fork.number, randomUUID());
        }
      }
    }
    while (reverts.length > 0) {
      const r = reverts[0]!;
      // A later revert to a lower block has dropped this one's block: that one tells it all.
      if (r.number <= (opts.store.headNumber() ?? -1)) await publishRevert(c, r.number, r.id);
      reverts.shift();
    }
    for (let head = opts.store.headNumber(); head !== undefined && next <= head && !closed; ) {
      const m = blockMessageFromStore(opts.store, next);
      if (m === undefined) throw new Error(`block ${next} is below the head but not stored`);
      await publishBlockMessage(c, next, encodeMessage(m), blockMessageId(next, m.hash), {});
      published = next;
      next++;
    }
    // A snapshot may end past the newest published block: its restorer waits for the next one.
    if (published !== undefined) snapshots.blockStored(published);
  }

  const loop = (async () => {
    while (!closed) {
      try {
        await publishBlocks();
        if (failing) log.info({ block: published }, "NATS publishing caught up");
        failing = false;
        await nap(1000);
      } catch (e) {
        if (closed) break;
        if (!failing)
          log.warn(
            { err: e },
            "NATS publishing failed: the sequencer goes on, the block stream catches up when NATS is back",
          );
        failing = true;
        // After an outage the stream's own last block is the truth (a publish may have landed),
        // and a restarted server may have lost the streams.
        next = undefined;
        ensuredOn = undefined;
        await nap(1000);
      }
    }
  })();

  return {
    onUpdate(u) {
      if (u.kind === "sealed" && u.reverted !== undefined)
        reverts.push({ number: u.number, id: randomUUID() });
      if (u.kind === "sealed") wake();
      const c = link.current();
      if (c === undefined || closed) {
        flashblocksDropped++;
        return;
      }
      // Parts are sent in order on the one connection without waiting (NATS keeps a
      // connection's order); a sealed block's update can exceed the server's max_payload too.
      const parts = splitPayload(encodeMessage(u), maxPayload(c));
      const sent = parts.map((part, i) =>
        c.js.publish(names.flashblockSubject, part, {
          headers: c.headers({
            [HEADER.format]: FORMAT,
            "Flashnode-Position": String(updatePosition(u)),
            ...partHeader(i, parts.length),
          }),
        }),
      );
      Promise.all(sent).then(
        () => flashblocksPublished++,
        () => flashblocksDropped++,
      );
    },
    blockCommitted: () => wake(),
    unreachable: () => link.unreachable(),
    status: () => ({
      connected: link.current() !== undefined,
      publishedBlock: published,
      flashblocksPublished,
      flashblocksDropped,
    }),
    async close() {
      closed = true;
      closing.abort();
      wake();
      await loop;
      await snapshots.close();
      stopAnswering();
      await link.close();
    },
  };
}
