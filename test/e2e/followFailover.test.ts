// Two followers of one `dev` sequencer publish into one NATS stream (`follow --nats`, the same
// --nats-prefix): one writes it, under a lease, the other follows the upstream itself and stands
// by. A replica of the stream serves clients while transactions flow.
// - SIGKILL the publishing follower: the standby takes over within 2 s, the replica's pending
//   holds a transaction sent after the kill within 2 s of it, and afterwards every block's
//   receipts and its storage and balances on the replica equal the sequencer's; the streams hold
//   every block once, and every pre-confirmed transaction once, in the sequencer's order.
// - SIGSTOP the publisher past its lease, a third follower takes over, SIGCONT the old one: the
//   streams hold nothing it wrote after the takeover, and it stands by.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import { blockMessageFromStore } from "../../src/replica/blockMessage.ts";
import { decodeChainUpdate, encodeBlockMessage } from "../../src/replica/codec.ts";
import { DEFAULT_STREAMS } from "../../src/replica/streams.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import {
  deployStorageContract,
  devSigner,
  pollUntil,
  setCalldata,
  signAtPendingNonce,
  sleep,
  startTestDevNode,
} from "../utils/devChain.ts";
import { call, tempDatadir } from "../utils/fixtures.ts";
import {
  type FleetFollower,
  headOf,
  preconfirmedByBlock,
  readStreams,
  roleOf,
  startFleetFollower,
  waitForRole,
} from "../utils/fleet.ts";
import { TxFlow } from "../utils/followProcesses.ts";
import { type NatsServer, startNatsServer } from "../utils/nats.ts";
import { startReplicaNode } from "../utils/nodes.ts";
import { stopChild } from "../utils/processes.ts";

const PREFIX = "fleet";
const TAKEOVER_MS = 2_000;
const setter = devSigner(2);

let nats: NatsServer;
let sequencer: RunningNode;
let replica: RunningNode;
let first: FleetFollower;
let second: FleetFollower;
let third: FleetFollower | undefined;
let contract: `0x${string}`;
const followers = () => [first, second, third].filter((f) => f !== undefined);

/** A second flow: `set(n)` on the storage contract, so that blocks change storage too. */
class SetFlow {
  #running = true;
  readonly #done: Promise<void>;
  constructor(chainId: number) {
    this.#done = (async () => {
      let n = 1n;
      while (this.#running) {
        try {
          const raw = await signAtPendingNonce(sequencer.url, setter, {
            chainId,
            gas: 100_000n,
            to: contract,
            data: setCalldata(n++),
          });
          await call(sequencer.url, "eth_sendRawTransaction", [raw]);
        } catch {
          // The pool refused a nonce it holds already: the next round asks again.
        }
        await sleep(300);
      }
    })();
  }
  async stop(): Promise<void> {
    this.#running = false;
    await this.#done;
  }
}

before(async () => {
  nats = await startNatsServer();
  sequencer = await startTestDevNode({ blockTimeMs: 1_000, flashblockIntervalMs: 200 });
  contract = await deployStorageContract(sequencer.url, setter, `0x${"ab".repeat(32)}`);
  const options = {
    upstream: sequencer.url,
    upstreamWs: sequencer.wsUrl,
    nats: nats.url,
    prefix: PREFIX,
  };
  first = await startFleetFollower({ ...options, datadir: tempDatadir("fleet-first") });
  await waitForRole(first, "leader");
  second = await startFleetFollower({ ...options, datadir: tempDatadir("fleet-second") });
  replica = await startReplicaNode({
    datadir: tempDatadir("fleet-replica"),
    nats: [nats.url],
    streams: { ...DEFAULT_STREAMS, prefix: PREFIX },
    flashblockIntervalMs: 200,
    forkUpstream: sequencer.url,
  });
  // Both followers at the sequencer's head, and the stream past the second one's first block.
  const head = (await headOf(sequencer.url)) + 1;
  for (const url of [first.url, second.url, replica.url])
    await pollUntil(
      () => headOf(url),
      (n) => n >= head,
      60_000,
    );
});

after(async () => {
  for (const f of followers()) {
    // A paused one would never exit.
    f.child.kill("SIGCONT");
    await stopChild(f.child, "SIGKILL");
  }
  await replica?.close();
  await sequencer?.close();
  await nats?.stop();
});

test("the standby takes over within 2 s of the publisher's SIGKILL, and the replica's chain is the sequencer's", async (t) => {
  assert.equal(await roleOf(first), "leader");
  assert.equal(await roleOf(second), "standby");
  const chainId = Number(await call(sequencer.url, "eth_chainId"));
  const transfers = new TxFlow(() => sequencer.url, chainId);
  const sets = new SetFlow(chainId);
  let killBlock: number | undefined;
  try {
    // Transactions flowing, and the replica showing them at pending.
    const start = await headOf(sequencer.url);
    await pollUntil(
      () => headOf(replica.url),
      (n) => n >= start + 3,
      30_000,
    );
    const signedBefore = transfers.hashes.length;
    const killedAt = performance.now();
    first.child.kill("SIGKILL");
    killBlock = await headOf(sequencer.url);
    await waitForRole(second, "leader", 10_000);
    const takeover = performance.now() - killedAt;
    // A transfer signed after the kill (the flow signs each just before sending it).
    await pollUntil(
      async () => transfers.hashes.length,
      (n) => n > signedBefore + 1,
      10_000,
    );
    const late = transfers.hashes[signedBefore + 1]!;
    await pollUntil(
      () => call(replica.url, "eth_getTransactionReceipt", [late]),
      (r) => r !== null,
      10_000,
      20,
    );
    const pendingMoved = performance.now() - killedAt;
    t.diagnostic(
      `takeover ${Math.round(takeover)} ms, replica pending moved on ${Math.round(pendingMoved)} ms after the kill`,
    );
    assert.ok(
      takeover <= TAKEOVER_MS,
      `the standby took over ${Math.round(takeover)} ms after the kill`,
    );
    assert.ok(
      pendingMoved <= TAKEOVER_MS,
      `the replica pre-confirmed a transaction sent after the kill ${Math.round(pendingMoved)} ms after it`,
    );
    // Blocks sealed while the second follower publishes.
    await pollUntil(
      () => headOf(replica.url),
      (n) => n >= killBlock! + 4,
      30_000,
    );
  } finally {
    await sets.stop();
    await transfers.stop();
  }
  const head = await headOf(sequencer.url);
  await pollUntil(
    () => headOf(replica.url),
    (n) => n >= head,
    30_000,
  );

  // Every block on the replica, its receipts, storage and balances, is the sequencer's.
  const base = Number(
    ((await call(replica.url, "eth_getBlockByNumber", ["earliest", false])) as { number: string })
      .number,
  );
  const firstOwn = (await readStreams(nats.url, PREFIX)).blocks[0]!.block!;
  const differences: string[] = [];
  for (let n = firstOwn; n <= head; n++) {
    const id = `0x${n.toString(16)}`;
    for (const [method, params] of [
      ["eth_getBlockByNumber", [id, false]],
      ["eth_getBlockReceipts", [id]],
      ["eth_getStorageAt", [contract, "0x0", id]],
      ["eth_getBalance", [transfers.sender, id]],
      ["eth_getBalance", ["0x00000000000000000000000000000000000b0b01", id]],
    ] as const) {
      const ours = await call(replica.dedicatedUrl, method, [...params]);
      const theirs = await call(sequencer.dedicatedUrl, method, [...params]);
      if (JSON.stringify(ours) !== JSON.stringify(theirs))
        differences.push(`${method}(${JSON.stringify(params)})`);
    }
  }
  assert.deepEqual(differences, [], `blocks ${firstOwn}..${head} (earliest ${base})`);

  // The streams: each block once, in order; both publishers wrote; the flashblocks of each
  // block pre-confirmed its transactions once each, in the sequencer's order, across the kill.
  const { blocks, flashblocks } = await readStreams(nats.url, PREFIX);
  assert.deepEqual(
    blocks.map((m) => m.block),
    blocks.map((_, i) => firstOwn + i),
    "one message per block, none missing, none twice",
  );
  assert.ok(blocks.some((m) => m.publisher === first.id));
  assert.ok(blocks.some((m) => m.publisher === second.id));
  const positions = flashblocks.map((m) => m.position!);
  assert.ok(
    positions.every((p, i) => i === 0 || p > positions[i - 1]!),
    "flashblock positions only grow",
  );
  const handover = flashblocks.findIndex((m) => m.publisher === second.id);
  assert.ok(handover > 0);
  // The new writer's first update continues the old one's last: the next flashblock of its
  // block, or the seal of that block (which carries the next block's flashblock 0).
  const [last, next] = [flashblocks[handover - 1]!, flashblocks[handover]!].map((m) =>
    decodeChainUpdate(m.data, m.format),
  );
  const lastFb = last!.kind === "sealed" ? last!.next : last!;
  const nextFb = next!.kind === "sealed" ? next!.next : next!;
  // A replica applies a flashblock of index > 0 only at the last position + 1; a seal or a
  // flashblock 0 whatever came before (updateConsumer.ts), so only the former must be numbered on.
  if (next!.kind === "flashblock" && nextFb.index > 0)
    assert.equal(positions[handover], positions[handover - 1]! + 1, "the new writer continues");
  // Or, when the two pre-confirmed the block differently (one had nothing on it yet), the new
  // writer's flashblock 0 of the block, or of the next.
  assert.ok(
    (nextFb.base.number === lastFb.base.number && nextFb.index === lastFb.index + 1) ||
      (nextFb.index === 0 && nextFb.base.number === lastFb.base.number + 1) ||
      (nextFb.index === 0 && lastFb.index === 0 && nextFb.base.number === lastFb.base.number),
    `after (${lastFb.base.number}, ${lastFb.index}) came (${nextFb.base.number}, ${nextFb.index})`,
  );
  const seals = flashblocks
    .map((m) => decodeChainUpdate(m.data, m.format))
    .flatMap((u) => (u.kind === "sealed" ? [u.number] : []));
  assert.ok(
    seals.every((n, i) => i === 0 || n > seals[i - 1]!),
    `each seal once: ${JSON.stringify(seals)}`,
  );
  // Around the kill (the first follower had followed whole blocks for a while by then), each
  // block's flashblocks pre-confirmed its transactions in its order, none twice, none missing
  // but those sealed after the last flashblock a follower applied (the block imported first).
  const preconfirmed = preconfirmedByBlock(flashblocks);
  const incomplete: number[] = [];
  for (let n = killBlock! - 2; n < head; n++) {
    const block = (await call(sequencer.url, "eth_getBlockByNumber", [
      `0x${n.toString(16)}`,
      false,
    ])) as { transactions: string[] };
    const got = preconfirmed.get(n) ?? [];
    assert.deepEqual(got, block.transactions.slice(0, got.length), `block ${n}'s flashblocks`);
    if (got.length < block.transactions.length) incomplete.push(n);
  }
  t.diagnostic(
    `kill at block ${killBlock!}; blocks whose last transactions were sealed before a follower pre-confirmed them: ${JSON.stringify(incomplete)}`,
  );
});

test("a publisher paused past its lease writes nothing once it is back, and stands by", async () => {
  third = await startFleetFollower({
    upstream: sequencer.url,
    upstreamWs: sequencer.wsUrl,
    nats: nats.url,
    prefix: PREFIX,
    datadir: tempDatadir("fleet-third"),
  });
  const head = (await headOf(sequencer.url)) + 1;
  await pollUntil(
    () => headOf(third!.url),
    (n) => n >= head,
    60_000,
  );
  assert.equal(await roleOf(third), "standby");
  assert.equal(await roleOf(second), "leader");
  second.child.kill("SIGSTOP");
  try {
    await waitForRole(third, "leader", 10_000);
    // The new writer has written, then the old one comes back.
    await pollUntil(
      async () => (await readStreams(nats.url, PREFIX)).flashblocks.at(-1)?.publisher,
      (p) => p === third!.id,
      10_000,
    );
  } finally {
    second.child.kill("SIGCONT");
  }
  await waitForRole(second, "standby", 10_000);
  // Blocks go on being published (by the third), with the second one back and standing by.
  const resumed = await headOf(sequencer.url);
  await pollUntil(
    () => headOf(replica.url),
    (n) => n >= resumed + 2,
    30_000,
  );
  const { blocks, flashblocks } = await readStreams(nats.url, PREFIX);
  for (const [name, messages] of [
    ["blocks", blocks],
    ["flashblocks", flashblocks],
  ] as const) {
    const takeover = messages.findIndex((m) => m.publisher === third!.id);
    assert.ok(takeover > 0, `${name}: the third follower wrote`);
    const late = messages.slice(takeover).filter((m) => m.publisher !== third!.id);
    assert.deepEqual(
      late.map((m) => `${m.seq}:${m.publisher}`),
      [],
      `${name}: nothing from another writer after the takeover`,
    );
  }
  assert.equal(await roleOf(second), "standby");
});

test("a block's message is the same bytes whichever follower publishes it", async () => {
  const { blocks } = await readStreams(nats.url, PREFIX);
  const archives = followers().map((f) => {
    const env = openKvEnv(f.datadir, { readOnly: true });
    return { f, env, store: createChainStore(env) };
  });
  try {
    let compared = 0;
    const differ: string[] = [];
    for (const m of blocks) {
      for (const { f, store } of archives) {
        // Each follower's own first block carries its own start record: only the blocks after.
        if (f.id === m.publisher || m.block! <= (store.forkBase()?.number ?? 0)) continue;
        const ours = blockMessageFromStore(store, m.block!);
        if (ours === undefined) continue;
        compared++;
        if (Buffer.compare(Buffer.from(encodeBlockMessage(ours)), Buffer.from(m.data)) !== 0)
          differ.push(`block ${m.block} from ${m.publisher}, as ${f.id} would send it`);
      }
    }
    assert.deepEqual(differ, []);
    assert.ok(compared > 10, `${compared} messages compared`);
  } finally {
    for (const { env } of archives) await env.close();
  }
});
