// The flashblock stream's writer (publisher.ts): each update sent as it comes, without waiting,
// each message expecting the stream's last sequence to be the one before it. A message another
// writer got in before is refused by the server, and so is every one sent after it: the writer
// stops, and starts again only from the stream as it then is (a new term). A writer that shares
// the stream with others (followers, under a lease) continues it where the stream's last update
// left pending (handover.ts); a sole writer (a dev sequencer) sends its updates as they are.
import type { Logger } from "../log/logger.ts";
import { type ChainUpdate, updatePosition } from "../pending/types.ts";
import { encodeChainUpdate, UPDATE_FORMAT } from "./codec.ts";
import { Handover, resume } from "./handover.ts";
import { isWrongLastSequence, type PublisherLease } from "./lease.ts";
import type { NatsContext, NatsLink } from "./natsLink.ts";
import { partHeader, splitPayload } from "./parts.ts";
import { flashblockStreamEnd, POSITION_HEADER } from "./streamEnds.ts";
import { HEADER, type StreamNames } from "./streams.ts";

/** Own updates kept for a new term to continue from: a block's worth of flashblocks and more. */
const RECENT = 64;

export type FlashblockWriterOptions = {
  readonly link: NatsLink;
  readonly names: StreamNames;
  readonly id: string;
  /** Absent: the only writer of the stream. */
  readonly lease?: PublisherLease;
  readonly maxPayload: (c: NatsContext) => number;
  /** A write was refused: another writer wrote the stream (the lease decides what follows). */
  readonly onRefused: () => void;
  readonly logger: Logger;
};

export class FlashblockWriter {
  published = 0;
  dropped = 0;
  private readonly recent: ChainUpdate[] = [];
  /** Set while this writer's term is in force: the sequence its next message expects. */
  private seq: number | undefined;
  private handover: Handover | undefined;
  private term: number | undefined;
  /** Bumped at every stop: what an older term sent and fails after it is not news. */
  private generation = 0;
  private syncing = false;
  private closed = false;
  private readonly inflight = new Set<Promise<unknown>>();

  constructor(private readonly o: FlashblockWriterOptions) {}

  onUpdate(u: ChainUpdate): void {
    this.recent.push(u);
    if (this.recent.length > RECENT) this.recent.shift();
    const c = this.o.link.current();
    const lease = this.o.lease;
    if (c === undefined || this.closed || (lease !== undefined && !lease.writable())) {
      this.stop();
      if (lease === undefined || lease.role() === "leader") this.dropped++;
      return;
    }
    if (lease !== undefined && lease.term() !== this.term) this.stop();
    if (this.seq === undefined || this.handover === undefined) {
      // The new term's first read of the stream sends what it finds missing, this one included.
      this.sync();
      return;
    }
    const out = this.handover.next(u);
    if (out !== undefined) this.send(c, out);
  }

  /** Nothing more is sent in this term. */
  stop(): void {
    if (this.seq === undefined && this.handover === undefined) return;
    this.seq = undefined;
    this.handover = undefined;
    this.generation++;
  }

  close(): void {
    this.closed = true;
    this.stop();
  }

  /** Reads where the stream ends, and sends from there (once what was in flight has settled). */
  private sync(): void {
    if (this.syncing) return;
    this.syncing = true;
    void (async () => {
      await Promise.allSettled([...this.inflight]);
      const c = this.o.link.current();
      const lease = this.o.lease;
      if (c === undefined || this.closed || (lease !== undefined && !lease.writable())) return;
      const term = lease?.term();
      const end = await flashblockStreamEnd(c, this.o.names);
      if (lease !== undefined && (!lease.writable() || lease.term() !== term)) return;
      this.term = term;
      this.seq = end.lastSeq;
      if (lease === undefined) {
        this.handover = new Handover(undefined);
        return;
      }
      const { handover, publish } = resume(this.recent, end.tail);
      this.handover = handover;
      for (const u of publish) this.send(c, u);
    })()
      .catch((e: unknown) =>
        this.o.logger.debug({ err: e }, "reading the flashblock stream failed"),
      )
      .finally(() => {
        this.syncing = false;
      });
  }

  private send(c: NatsContext, u: ChainUpdate): void {
    if (this.seq === undefined) return;
    const generation = this.generation;
    // Parts are sent in order on the one connection without waiting (NATS keeps a connection's
    // order), each expecting the one before: a sealed block's update can exceed max_payload too.
    const parts = splitPayload(encodeChainUpdate(u), this.o.maxPayload(c));
    const sent = parts.map((part, i) => {
      const expected = this.seq!;
      this.seq = expected + 1;
      return c.js.publish(this.o.names.flashblockSubject, part, {
        expect: { lastSequence: expected },
        headers: c.headers({
          [HEADER.format]: UPDATE_FORMAT,
          [POSITION_HEADER]: String(updatePosition(u)),
          [HEADER.publisher]: this.o.id,
          ...partHeader(i, parts.length),
        }),
      });
    });
    const all = Promise.all(sent);
    this.inflight.add(all);
    all.then(
      () => {
        this.inflight.delete(all);
        this.published++;
      },
      (e: unknown) => {
        this.inflight.delete(all);
        this.dropped++;
        if (generation !== this.generation) return;
        // This term is over: what follows is sent in a new one, from the stream as it is then.
        this.stop();
        if (isWrongLastSequence(e)) this.o.onRefused();
      },
    );
  }
}
