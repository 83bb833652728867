// The writing side of replication: every sealed block to the block stream, after its LMDB commit
// and read back from the archive, and every flashblock to the flashblock stream; replicas'
// transactions answered over request/reply. A dev sequencer (`dev --nats`) is its stream's only
// writer; followers of one chain (`follow --nats`) share theirs, and one of them at a time writes,
// under a lease (lease.ts). Every message expects the stream's last sequence to be the one its
// writer last saw, so the server refuses a writer that lost its turn. NATS never holds the node
// up: flashblocks are sent without waiting, and blocks by a loop that keeps only "the next block
// to publish" (the archive holds the rest), so an outage costs nothing but a catch-up.

import { randomUUID } from "node:crypto";
import type { Logger } from "../log/logger.ts";
import type { ChainUpdate } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToUnprefixedHex } from "../util/hex.ts";
import { blockMessageFromStore, chainOrigin } from "./blockMessage.ts";
import { blockMessageId, forkPoint, REVERT_HEADER } from "./chainFork.ts";
import { encodeBlockMessage, FORMAT } from "./codec.ts";
import { FlashblockWriter } from "./flashblockWriter.ts";
import { isWrongLastSequence, type LeaseRole, type PublisherLease, startLease } from "./lease.ts";
import { type NatsContext, type NatsLink, openNatsLink } from "./natsLink.ts";
import { partHeader, splitPayload } from "./parts.ts";
import { startSnapshotter } from "./snapshots.ts";
import { blockStreamEnd } from "./streamEnds.ts";
import { HEADER, newPublisherId, type StreamOptions, streamNames } from "./streams.ts";
import { answerTransactions, type TransactionTarget } from "./txForwarding.ts";

export type PublisherStatus = {
  readonly connected: boolean;
  /** The newest block the block stream acknowledged (undefined before the first). */
  readonly publishedBlock: number | undefined;
  readonly flashblocksPublished: number;
  readonly flashblocksDropped: number;
  /** Whether this node writes the streams now (a sole writer always does). */
  readonly role: LeaseRole;
  /** Its publisher id (the `Flashnode-Publisher` header of what it writes). */
  readonly id: string;
};

export type Publisher = {
  /** Each update of the node, in order. */
  onUpdate(u: ChainUpdate): void;
  /**
   * A block was just committed: publish it now, before the node opens the next block and
   * sends its flashblock 0 (a replica applies that seal only once it holds the block).
   */
  blockCommitted(): void;
  status(): PublisherStatus;
  /** Why publishing is not possible now (NATS unreachable); undefined: it is. */
  unreachable(): string | undefined;
  close(): Promise<void>;
};

/** Followers sharing one stream: the lease that picks its writer. */
export type SharedStream = {
  /** The lease's TTL (a standby takes over this long after the writer's last renewal). */
  readonly leaseTtlMs: number;
  /** This node's publisher id (default: host, process id and a random part). */
  readonly id?: string;
};

/** This archive cannot continue the stream (it starts after the stream's end, or is another chain). */
class CannotContinueError extends FlashnodeError {
  readonly code = "CANNOT_CONTINUE";
}

/** The lease was lost, or is in doubt, between two writes: nothing more is written in this term. */
class NotWritableError extends FlashnodeError {
  readonly code = "NOT_WRITABLE";
}

/** A writer that could not continue the stream leaves the lease to others this long. */
const INELIGIBLE_MS = 5_000;

/** The largest message the server takes (its max_payload; NATS's default when it did not say). */
function maxPayload(c: NatsContext): number {
  return c.nc.info?.max_payload ?? 1024 * 1024;
}

/** The bucket of a shared stream's lease. */
export function leaseBucket(prefix: string): string {
  return `${streamNames(prefix).blocks.replace(/_BLOCKS$/, "")}_PUBLISHER`;
}

export function startPublisher(opts: {
  readonly servers: readonly string[];
  readonly store: ChainStore;
  readonly streams: StreamOptions;
  /** Where replicas' transactions go (a sequencer; a follower's --tx-forward). */
  readonly sequencer: TransactionTarget;
  readonly logger: Logger;
  /** Absent: this node is the stream's only writer (a dev sequencer). */
  readonly shared?: SharedStream;
  /** The NATS connection's name. */
  readonly connectionName?: string;
}): Publisher {
  const log = opts.logger.child({ module: "nats" });
  const names = streamNames(opts.streams.prefix);
  const link: NatsLink = openNatsLink(
    opts.servers,
    opts.connectionName ?? "flashnode-sequencer",
    log,
  );
  let closed = false;
  /** Aborted by close(): a wait for a connection ends at once. */
  const closing = new AbortController();
  let next: number | undefined;
  let published: number | undefined;
  /** The block stream's last sequence, as this writer's term knows it (what its next write expects). */
  let blockSeq = 0;
  let failing = false;
  let ineligibleUntil = 0;
  let cannotSaid: string | undefined;
  let wake: () => void = () => {};
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const lease: PublisherLease | undefined =
    opts.shared === undefined
      ? undefined
      : startLease({
          link,
          bucket: leaseBucket(opts.streams.prefix),
          ttlMs: opts.shared.leaseTtlMs,
          replicas: opts.streams.replicas,
          logger: log,
          ...(opts.shared.id === undefined ? {} : { id: opts.shared.id }),
          eligible: () => Date.now() >= ineligibleUntil,
        });
  const id = lease?.id ?? newPublisherId();
  /** The lease term the block loop last read the streams in. */
  let blockTerm: number | undefined;
  const refused = () => {
    log.warn({ id }, "a write was refused: another publisher wrote the stream");
    next = undefined;
    if (lease !== undefined) void lease.confirm().then(() => wake());
    else wake();
  };
  const flashblocks = new FlashblockWriter({
    link,
    names,
    id,
    ...(lease === undefined ? {} : { lease }),
    maxPayload,
    onRefused: refused,
    logger: log,
  });
  lease?.onChange((role) => {
    if (role === "standby") flashblocks.stop();
    wake();
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
  /** evm_revert, or an upstream's reorg: the block the chain went back to, each told once. */
  const reverts: Array<{ number: number; id: string }> = [];
  /** Publishes block `number` again as the chain's new head (chainFork.ts). */
  async function publishRevert(c: NatsContext, number: number, revertId: string): Promise<void> {
    const m = blockMessageFromStore(opts.store, number);
    if (m === undefined) throw new Error(`block ${number} is the head but not stored`);
    await publishBlockMessage(
      c,
      number,
      encodeBlockMessage(m),
      blockMessageId(number, m.hash, revertId),
      {
        [REVERT_HEADER]: "1",
      },
    );
    next = number + 1;
    published = number;
  }
  /** The chain the messages name: this archive's origin, or the shared stream's. */
  let genesis: string | undefined;
  const genesisHex = () => {
    genesis ??= bytesToUnprefixedHex(chainOrigin(opts.store) ?? new Uint8Array(32));
    return genesis;
  };
  /**
   * One block message, in parts when it is larger than the server takes (parts.ts): each part
   * acknowledged before the next, so they are consecutive in the stream; the last one carries
   * the message's id (what readers look a block up by), the others that id and their index.
   * Each expects the stream's last sequence to be the one this writer saw last.
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
      if (lease !== undefined && !lease.writable()) throw new NotWritableError("lease lost");
      const last = i === parts.length - 1;
      const ack = await c.js.publish(names.blockSubject(number), parts[i], {
        msgID: last ? msgID : `${msgID}:part:${i}`,
        expect: { lastSequence: blockSeq },
        headers: c.headers({
          [HEADER.format]: FORMAT,
          [HEADER.block]: String(number),
          [HEADER.genesis]: genesisHex(),
          [HEADER.publisher]: id,
          ...extra,
          ...partHeader(i, parts.length),
        }),
      });
      // A duplicate (the same message within the window) was not written: the stream is as it was.
      if (!ack.duplicate) blockSeq = ack.seq;
    }
  }

  /**
   * Where a new term starts: after the stream's newest block, going back first to the last block
   * the archive and the stream share when the stream holds blocks the archive dropped (an
   * evm_revert or a reorg told to no one). False: not yet (a follower behind the stream waits).
   */
  async function startTerm(c: NatsContext): Promise<boolean> {
    const end = await blockStreamEnd(c, names);
    blockSeq = end.lastSeq;
    const last = end.lastBlock;
    const base = opts.store.forkBase()?.number ?? 0;
    const head = opts.store.headNumber();
    // An empty stream starts at the chain's first block: 0, or a forked (followed) chain's F.
    if (last === undefined || head === undefined) {
      next = last === undefined ? base : last + 1;
      published = last;
      return true;
    }
    if (lease !== undefined && last < base)
      throw new CannotContinueError(
        `the block stream ends at block ${last}, before this follower's first block ${base}: it cannot continue it`,
      );
    const fork = await forkPoint(c, names, opts.store, Math.min(last, head), base);
    if (lease !== undefined) {
      if (fork === undefined)
        throw new CannotContinueError(
          `the block stream carries another chain than this follower's archive (no block from ${base} to ${Math.min(last, head)} in common)`,
        );
      // Behind the stream on its chain: it continues once it has the stream's newest block.
      if (fork.number === head && head < last) return false;
      // The stream's messages name the chain it began with (the first writer's first block).
      genesis = end.genesis ?? genesisHex();
    }
    next = last + 1;
    published = last;
    if (fork !== undefined && fork.number < last) {
      log.warn(
        { block: fork.number, stream: last },
        "the block stream goes back to this archive's chain",
      );
      await publishRevert(c, fork.number, randomUUID());
    }
    return true;
  }

  async function publishBlocks(): Promise<void> {
    const c = await link.ready(closing.signal);
    if (lease !== undefined) {
      if (!lease.writable()) {
        next = undefined;
        return;
      }
      if (lease.term() !== blockTerm) {
        next = undefined;
        // What happened while another wrote is read from the stream, not from this queue.
        reverts.length = 0;
      }
    }
    if (ensuredOn !== c) {
      await c.ensureStreams(names, opts.streams);
      ensuredOn = c;
    }
    // Written by another thread (a sequencer's): this thread's read snapshot must see its commits.
    opts.store.env.refresh();
    if (next === undefined) {
      const term = lease?.term();
      if (!(await startTerm(c))) return;
      blockTerm = term;
      cannotSaid = undefined;
    }
    while (reverts.length > 0) {
      const r = reverts[0]!;
      // A later revert to a lower block has dropped this one's block: that one tells it all.
      if (r.number <= (opts.store.headNumber() ?? -1)) await publishRevert(c, r.number, r.id);
      reverts.shift();
    }
    for (let head = opts.store.headNumber(); head !== undefined && next! <= head && !closed; ) {
      const n = next!;
      const m = blockMessageFromStore(opts.store, n);
      if (m === undefined) throw new Error(`block ${n} is below the head but not stored`);
      await publishBlockMessage(c, n, encodeBlockMessage(m), blockMessageId(n, m.hash), {});
      published = n;
      next = n + 1;
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
        // After an outage the stream's own last block is the truth (a publish may have landed),
        // and a restarted server may have lost the streams.
        next = undefined;
        ensuredOn = undefined;
        if (e instanceof NotWritableError) continue;
        if (isWrongLastSequence(e)) {
          refused();
          continue;
        }
        if (e instanceof CannotContinueError && lease !== undefined) {
          // Said once while it lasts: it is tried again every few seconds.
          if (e.message !== cannotSaid)
            log.error({ id }, `${e.message}; another follower may publish it`);
          cannotSaid = e.message;
          ineligibleUntil = Date.now() + INELIGIBLE_MS;
          await lease.release();
          continue;
        }
        if (!failing)
          log.warn(
            { err: e },
            "NATS publishing failed: the node goes on, the block stream catches up when NATS is back",
          );
        failing = true;
        await nap(1000);
      }
    }
  })();

  return {
    onUpdate(u) {
      if (u.kind === "sealed" && u.reverted !== undefined && (lease?.writable() ?? true))
        reverts.push({ number: u.number, id: randomUUID() });
      if (u.kind === "sealed") wake();
      if (closed) return;
      flashblocks.onUpdate(u);
    },
    blockCommitted: () => wake(),
    unreachable: () => link.unreachable(),
    status: () => ({
      connected: link.current() !== undefined,
      publishedBlock: published,
      flashblocksPublished: flashblocks.published,
      flashblocksDropped: flashblocks.dropped,
      role: lease?.role() ?? "leader",
      id,
    }),
    async close() {
      closed = true;
      closing.abort();
      flashblocks.close();
      wake();
      await loop;
      await lease?.close();
      await snapshots.close();
      stopAnswering();
      await link.close();
    },
  };
}
