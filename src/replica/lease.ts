// One writer for a stream that several nodes can write (followers of one chain publishing into one
// `--nats-prefix`): a lease in a NATS KV bucket, `<PREFIX>_PUBLISHER`, key `publisher`. The bucket's
// TTL expires a lease its holder stopped renewing (dead, paused, cut off from NATS); a standby
// takes it with a create, which the server grants to one of them only; the holder renews it with an
// update on its revision, which fails once anyone else has taken it. The holder's own clock is the
// second guard: it writes only while its last renewal was sent less than three quarters of the TTL
// ago, so a holder paused past its TTL does not write before it learns it was deposed. A write that
// slips through anyway is refused by the streams' expected-last-sequence (publisher.ts).
import { jetstream, StorageType } from "@nats-io/jetstream";
import { type KV, Kvm } from "@nats-io/kv";
import type { Logger } from "../log/logger.ts";
import { pause } from "../util/abort.ts";
import type { NatsContext, NatsLink } from "./natsLink.ts";
import { newPublisherId } from "./streams.ts";

export const LEASE_KEY = "publisher";

export type LeaseRole = "leader" | "standby";

/** What a lease's holder stores as its value: who writes the stream. */
export type LeaseHolder = { readonly id: string; readonly since: number };

export type PublisherLease = {
  /** This node's publisher id (also the `Flashnode-Publisher` header of what it writes). */
  readonly id: string;
  /** The bucket's TTL in force (an existing bucket keeps its own). */
  readonly ttlMs: number;
  role(): LeaseRole;
  /**
   * Whether this node may write now: it holds the lease and its last renewal was sent within the
   * safe part of the TTL.
   */
  writable(): boolean;
  /** Grows each time the lease is taken (a new term: the writer reads the streams' state anew). */
  term(): number;
  /**
   * A write was refused (another writer, or an ambiguous earlier write): renews at once; false,
   * and standby, when the lease is someone else's.
   */
  confirm(): Promise<boolean>;
  /** Gives the lease up now (this node cannot write the stream): a standby takes it at once. */
  release(): Promise<void>;
  /** The holder named by the bucket, as last read (undefined: none, or not read yet). */
  holder(): LeaseHolder | undefined;
  /** Told of every role change. */
  onChange(listener: (role: LeaseRole) => void): void;
  /** Stops campaigning; a holder releases the lease, so a standby takes over at once. */
  close(): Promise<void>;
};

export type LeaseOptions = {
  readonly link: NatsLink;
  /** The KV bucket's name. */
  readonly bucket: string;
  /** TTL of a new bucket (ms). */
  readonly ttlMs: number;
  /** JetStream replicas of a new bucket. */
  readonly replicas: number;
  readonly logger: Logger;
  /** This node's id; by default `<host>:<pid>:<random>`. */
  readonly id?: string;
  /** Whether this node may take the lease now (a follower that cannot continue the stream waits). */
  readonly eligible?: () => boolean;
  readonly now?: () => number;
};

/** NATS's "wrong last sequence" (10071): a compare-and-set that lost. */
export function isWrongLastSequence(e: unknown): boolean {
  const code = (e as { code?: unknown; api_error?: { err_code?: unknown } } | null)?.api_error
    ?.err_code;
  return code === 10071 || /wrong last sequence/i.test(String((e as Error)?.message ?? e));
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function startLease(o: LeaseOptions): PublisherLease {
  const log = o.logger.child({ module: "lease" });
  const id = o.id ?? newPublisherId();
  const now = o.now ?? (() => performance.now());
  let ttlMs = o.ttlMs;
  let role: LeaseRole = "standby";
  let term = 0;
  let revision = 0;
  /** When the last successful renewal (or the take) was sent (`now()` ms). */
  let renewedAt = Number.NEGATIVE_INFINITY;
  let holder: LeaseHolder | undefined;
  let closed = false;
  const closing = new AbortController();
  const listeners: Array<(r: LeaseRole) => void> = [];
  let opened: { ctx: NatsContext; kv: KV } | undefined;
  let busy: Promise<unknown> = Promise.resolve();
  const serial = <T>(fn: () => Promise<T>): Promise<T> => {
    const run = busy.then(fn, fn);
    busy = run.catch(() => undefined);
    return run;
  };

  const become = (r: LeaseRole, why: string) => {
    if (r === role) return;
    role = r;
    if (r === "leader") term++;
    if (r === "leader") log.info({ id, term }, `this node publishes the stream now (${why})`);
    else log.warn({ id }, `this node no longer publishes the stream (${why}): standby`);
    for (const l of listeners) l(r);
  };
  // A function, not a narrowed read: the role changes under the loop's feet.
  const isLeader = () => role === "leader";
  const value = () => encoder.encode(JSON.stringify({ id, since: Date.now() }));

  async function bucketOn(ctx: NatsContext): Promise<KV> {
    if (opened?.ctx === ctx) return opened.kv;
    // Its calls time out within the TTL: a renewal that cannot land in time is a lost one.
    const kvm = new Kvm(jetstream(ctx.nc, { timeout: Math.max(250, Math.floor(o.ttlMs / 2)) }));
    const kv = await kvm.create(o.bucket, {
      ttl: o.ttlMs,
      history: 1,
      replicas: o.replicas,
      storage: StorageType.File,
    });
    ttlMs = (await kv.status()).ttl || o.ttlMs;
    opened = { ctx, kv };
    return kv;
  }

  async function renew(kv: KV): Promise<boolean> {
    const sentAt = now();
    try {
      revision = await kv.update(LEASE_KEY, value(), revision);
      renewedAt = sentAt;
      return true;
    } catch (e) {
      if (!isWrongLastSequence(e)) throw e;
      become("standby", "another node took the lease");
      return false;
    }
  }

  async function step(): Promise<void> {
    const ctx = o.link.current();
    if (ctx === undefined) {
      if (role === "leader" && now() - renewedAt >= ttlMs) become("standby", "NATS out of reach");
      return;
    }
    const kv = await bucketOn(ctx);
    if (role === "leader") {
      await renew(kv);
      return;
    }
    const entry = await kv.get(LEASE_KEY);
    holder =
      entry === null || entry.operation !== "PUT"
        ? undefined
        : (JSON.parse(decoder.decode(entry.value)) as LeaseHolder);
    if (holder !== undefined || o.eligible?.() === false) return;
    const sentAt = now();
    try {
      revision = await kv.create(LEASE_KEY, value());
    } catch (e) {
      if (isWrongLastSequence(e)) return;
      throw e;
    }
    renewedAt = sentAt;
    holder = { id, since: Date.now() };
    become("leader", "the lease was free");
  }

  const loop = (async () => {
    let failing = false;
    while (!closed) {
      try {
        await serial(step);
        failing = false;
      } catch (e) {
        if (closed) break;
        if (!failing) log.warn({ err: e }, "the publisher lease could not be read or renewed");
        failing = true;
        opened = undefined;
        if (isLeader() && now() - renewedAt >= ttlMs) become("standby", "lease not renewed");
      }
      // Renewals five times a TTL; a standby asks as often, so it takes a lapsed lease at once.
      await pause(Math.max(20, Math.floor(ttlMs / 5)), closing.signal);
    }
  })();

  return {
    id,
    get ttlMs() {
      return ttlMs;
    },
    role: () => role,
    writable: () => role === "leader" && now() - renewedAt < (ttlMs * 3) / 4,
    term: () => term,
    holder: () => (role === "leader" ? { id, since: 0 } : holder),
    confirm: () => {
      // Nothing is written until the lease is known to be this node's still.
      renewedAt = Number.NEGATIVE_INFINITY;
      return serial(async () => {
        if (role !== "leader") return false;
        const ctx = o.link.current();
        if (ctx === undefined) return false;
        if (!(await renew(await bucketOn(ctx)))) return false;
        // Still ours: whatever refused the write, the writer starts a new term from the streams.
        term++;
        return true;
      }).catch(() => false);
    },
    release: () =>
      serial(async () => {
        if (role !== "leader") return;
        const held = opened;
        become("standby", "released");
        await held?.kv.delete(LEASE_KEY, { previousSeq: revision }).catch(() => undefined);
      }),
    onChange(listener) {
      listeners.push(listener);
    },
    async close() {
      closed = true;
      closing.abort();
      await loop;
      await serial(async () => {
        if (role !== "leader" || opened === undefined) return;
        role = "standby";
        // Handed over at once: a standby sees the key deleted at its next look.
        await opened.kv.delete(LEASE_KEY, { previousSeq: revision }).catch(() => undefined);
      });
    },
  };
}
