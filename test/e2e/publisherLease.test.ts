// The publisher lease of followers sharing a stream (src/replica/lease.ts) on a real nats-server:
// one holder at a time; a holder that stops hands it over at once; a holder deposed while it
// was not looking learns it at its next renewal, and its own clock stops it writing before that
// when it was paused past the safe part of the TTL. And the fence behind both: a deposed writer
// whose write was already on its way when it was cut off (held in the network past its lease)
// writes nothing into the stream once that write arrives, after the new writer's.
import assert from "node:assert/strict";
import { createConnection, createServer, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { jetstream } from "@nats-io/jetstream";
import { Kvm } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { FlashblockWriter } from "../../src/replica/flashblockWriter.ts";
import {
  LEASE_KEY,
  type LeaseRole,
  type PublisherLease,
  startLease,
} from "../../src/replica/lease.ts";
import { type NatsLink, openNatsLink } from "../../src/replica/natsLink.ts";
import { DEFAULT_STREAMS, streamNames } from "../../src/replica/streams.ts";
import { flashblock } from "../utils/flashblockDiffs.ts";
import { readStreams } from "../utils/fleet.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { silentLogger } from "../utils/options.ts";
import { within } from "../utils/within.ts";

const TTL_MS = 600;
let nats: NatsServer;
const opened: Array<{ lease: PublisherLease; link: NatsLink }> = [];

before(async () => {
  nats = await startNatsServer();
});

after(async () => {
  for (const { lease, link } of opened) {
    await lease.close();
    await link.close();
  }
  await nats?.stop();
});

function lease(bucket: string, id: string, now?: () => number, url = nats.url) {
  const link = openNatsLink([url], `lease-${id}`, silentLogger, { quiet: true });
  const l = startLease({
    link,
    bucket,
    ttlMs: TTL_MS,
    replicas: 1,
    logger: silentLogger,
    id,
    ...(now === undefined ? {} : { now }),
  });
  opened.push({ lease: l, link });
  return l;
}

function becomes(l: PublisherLease, role: LeaseRole): Promise<void> {
  if (l.role() === role) return Promise.resolve();
  return within(
    new Promise<void>((resolve) => l.onChange((r) => r === role && resolve())),
    `${l.id} becoming ${role}`,
    10_000,
  );
}

test("one holder at a time; a holder that stops hands the lease over at once", async () => {
  const a = lease("ONE_PUBLISHER", "a");
  await becomes(a, "leader");
  const b = lease("ONE_PUBLISHER", "b");
  // Renewed five times a TTL: b sees a holder every time it looks.
  await within(
    new Promise<void>((resolve) => {
      const check = setInterval(() => {
        if (b.holder()?.id === "a") {
          clearInterval(check);
          resolve();
        }
      }, 10);
    }),
    "b reading a's lease",
  );
  assert.equal(b.role(), "standby");
  assert.equal(a.writable(), true);
  assert.equal(b.writable(), false);
  const closedAt = performance.now();
  await a.close();
  await becomes(b, "leader");
  // Released, not expired: taken at b's next look, well within the TTL.
  assert.ok(performance.now() - closedAt < TTL_MS, "taken over before the TTL ran out");
  assert.equal(b.writable(), true);
});

test("a holder deposed behind its back finds out at its next renewal, and confirm() says so", async () => {
  const a = lease("TWO_PUBLISHER", "a");
  await becomes(a, "leader");
  const b = lease("TWO_PUBLISHER", "b");
  // Someone removes a's lease (as its expiry would while a is paused): b takes it.
  const nc = await connect({ servers: [nats.url] });
  try {
    const kv = await new Kvm(jetstream(nc)).open("TWO_PUBLISHER");
    await kv.delete(LEASE_KEY);
  } finally {
    await nc.close();
  }
  await becomes(b, "leader");
  await becomes(a, "standby");
  assert.equal(a.writable(), false);
  assert.equal(await a.confirm(), false, "the lease is b's");
  assert.equal(await b.confirm(), true, "b still holds it");
  assert.equal(b.writable(), true);
});

test("a holder whose last renewal is older than three quarters of the TTL does not write", async () => {
  let paused = 0;
  const a = lease("THREE_PUBLISHER", "a", () => performance.now() + paused);
  await becomes(a, "leader");
  assert.equal(a.writable(), true);
  // As a process paused (SIGSTOP) this long sees its clock when it runs again.
  paused = (TTL_MS * 3) / 4;
  assert.equal(a.writable(), false, "its lease may have expired: it does not write");
});

/**
 * A TCP relay to the nats-server that can be frozen: while frozen it holds what either side sends
 * (as a network that delays a connection, or a host paused with its writes in flight), and hands
 * it all on, in order, when thawed.
 */
async function freezableRelay(target: string): Promise<{
  url: string;
  freeze(): void;
  thaw(): void;
  /** Bytes the client sent while frozen, held back. */
  held(): number;
  close(): Promise<void>;
}> {
  const { hostname, port } = new URL(target);
  let frozen = false;
  const pending: Array<() => void> = [];
  let heldBytes = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: hostname, port: Number(port) });
    sockets.add(client).add(upstream);
    const relay = (from: Socket, to: Socket, fromClient: boolean) =>
      from.on("data", (chunk) => {
        if (!frozen) {
          to.write(chunk);
          return;
        }
        if (fromClient) heldBytes += chunk.length;
        pending.push(() => to.write(chunk));
      });
    relay(client, upstream, true);
    relay(upstream, client, false);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("close", end).on("error", end);
    upstream.on("close", end).on("error", end);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as { port: number };
  return {
    url: `nats://127.0.0.1:${address.port}`,
    freeze: () => {
      frozen = true;
    },
    thaw: () => {
      frozen = false;
      for (const write of pending.splice(0)) write();
      heldBytes = 0;
    },
    held: () => heldBytes,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function until(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  await within(
    (async () => {
      while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 10));
    })(),
    what,
    20_000,
  );
}

test("a deposed writer's flashblock held in the network past its lease is refused: the stream holds nothing of it after the new writer's", async () => {
  const prefix = "fenced";
  const names = streamNames(prefix);
  const bucket = "FENCED_PUBLISHER";
  const relay = await freezableRelay(nats.url);
  try {
    // The old writer reaches NATS through the relay; the new one directly.
    const a = lease(bucket, "old", undefined, relay.url);
    await becomes(a, "leader");
    const b = lease(bucket, "new");
    const linkA = opened.at(-2)!.link;
    const linkB = opened.at(-1)!.link;
    await (await linkB.ready()).ensureStreams(names, { ...DEFAULT_STREAMS, prefix });
    const writer = (link: NatsLink, l: PublisherLease) =>
      new FlashblockWriter({
        link,
        names,
        id: l.id,
        lease: l,
        maxPayload: () => 1024 * 1024,
        onRefused: () => void l.confirm(),
        logger: silentLogger,
      });
    const wa = writer(linkA, a);
    const wb = writer(linkB, b);
    const messages = async () => (await readStreams(nats.url, prefix)).flashblocks;
    const byOld = async () => (await messages()).filter((m) => m.publisher === "old").length;

    // The old writer's first update opens its term (it reads the stream's end, then sends it).
    wa.onUpdate(flashblock(7, 0));
    await until("the old writer's flashblock 0 in the stream", async () => (await byOld()) === 1);
    wa.onUpdate(flashblock(7, 1));
    await until("the old writer's flashblock 1 in the stream", async () => (await byOld()) === 2);

    // Cut off with a write on its way: it holds the lease still (renewed within the TTL), so it
    // sends; the relay holds the message.
    relay.freeze();
    assert.equal(a.writable(), true);
    const heldBefore = relay.held();
    wa.onUpdate(flashblock(7, 2));
    await until(
      "the old writer's flashblock 2 held in the network",
      () => relay.held() > heldBefore,
    );

    // Its renewals are held too: the lease expires on the server and the other takes it.
    await becomes(b, "leader");
    for (const index of [0, 1, 2, 3]) wb.onUpdate(flashblock(7, index));
    await until("the new writer's flashblock in the stream", async () =>
      (await messages()).some((m) => m.publisher === "new"),
    );
    const beforeThaw = await messages();

    // Back: what it sent while cut off reaches the server now, after the new writer's messages.
    relay.thaw();
    // A round trip on its connection: the server has handled everything sent before it.
    await (await linkA.ready()).nc.flush();
    await becomes(a, "standby");
    const after = await messages();
    const takeover = after.findIndex((m) => m.publisher === "new");
    assert.ok(takeover > 0, "the new writer wrote after the old one's flashblocks");
    assert.deepEqual(
      after
        .slice(takeover)
        .filter((m) => m.publisher !== "new")
        .map((m) => `${m.seq}:${m.publisher}`),
      [],
      "nothing from the deposed writer after the takeover",
    );
    assert.equal(
      after.filter((m) => m.publisher === "old").length,
      2,
      "the deposed writer's held flashblock was not written",
    );
    // The stream's sequence counts only what was there before the old writer came back (and the
    // new writer's own messages since).
    assert.deepEqual(
      after.slice(0, beforeThaw.length).map((m) => m.seq),
      beforeThaw.map((m) => m.seq),
    );
    assert.ok(
      after.slice(beforeThaw.length).every((m) => m.publisher === "new"),
      "only the new writer's messages after the thaw",
    );
    wa.close();
    wb.close();
  } finally {
    relay.thaw();
    await relay.close();
  }
});
