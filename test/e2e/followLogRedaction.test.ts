// A follower's log keeps its upstream's secrets out (issue 33.1): `flashnode follow` of a
// `flashnode dev` sequencer, with a key in the RPC URL's path (the dedicated tier, /rpc/<key>) and
// query, keys in the stream URL's user info, path and query (through a relay that serves the
// sequencer's /flashblocks at a keyed path, as a provider would), and a NATS password in --nats
// (a server that is not there: the follower says it cannot reach it), at --log-level debug. The
// sequencer is killed and restarted on its port and datadir, which cuts the stream; no key may
// appear in any line the follower prints, and each connect and disconnect is logged once.
import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, test } from "node:test";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { freePort } from "../../bench/compare/peers.ts";
import { tempDatadir } from "../utils/fixtures.ts";
import { head, until } from "../utils/followProcesses.ts";
import { type RpcProcess, startCli, stopChild } from "../utils/processes.ts";

const RPC_KEY = "rpcPathKey7f3a91c2";
const RPC_QUERY_KEY = "rpcQueryKey5b2e8d40";
const STREAM_PATH_KEY = "streamPathKey9c1d6e77";
const STREAM_QUERY_KEY = "streamQueryKey2a8f4b19";
const STREAM_PASSWORD = "streamPassword6e0c3d55";
const NATS_PASSWORD = "natsPassword1d9b7a03";
const SECRETS = [
  RPC_KEY,
  RPC_QUERY_KEY,
  STREAM_PATH_KEY,
  STREAM_QUERY_KEY,
  STREAM_PASSWORD,
  NATS_PASSWORD,
];

/**
 * Serves the sequencer's /flashblocks at /ws/<key>: one upstream connection per client, cut when
 * either side closes (the sequencer killed: the follower's connection drops with it).
 */
async function keyedRelay(upstreamPort: number): Promise<{ port: number; close(): void }> {
  const wss = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  wss.on("connection", (client, req) => {
    if (!(req.url ?? "").startsWith(`/ws/${STREAM_PATH_KEY}?apikey=${STREAM_QUERY_KEY}`)) {
      client.close(1008, "unknown key");
      return;
    }
    const upstream = new WebSocket(`ws://127.0.0.1:${upstreamPort}/flashblocks`);
    const pending: Array<[RawData, boolean]> = [];
    upstream.on("message", (data, isBinary) => client.send(data, { binary: isBinary }));
    client.on("message", (data, isBinary) => {
      if (upstream.readyState === WebSocket.OPEN) upstream.send(data, { binary: isBinary });
      else pending.push([data, isBinary]);
    });
    upstream.on("open", () => {
      for (const [data, binary] of pending.splice(0)) upstream.send(data, { binary });
    });
    upstream.on("error", () => client.terminate());
    upstream.on("close", () => client.terminate());
    client.on("close", () => upstream.terminate());
  });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  return {
    port: (wss.address() as AddressInfo).port,
    close: () => {
      for (const c of wss.clients) c.terminate();
      wss.close();
    },
  };
}

function startSequencer(datadir: string, port: number): Promise<RpcProcess> {
  return startCli(["dev", "--datadir", datadir, "--block-time", "1s", "--api-key", RPC_KEY], {
    port,
  });
}

/** Sums a series over its labels from /metrics. */
async function metric(node: RpcProcess, name: string): Promise<number> {
  const text = await (await fetch(`${node.url}metrics`)).text();
  let sum = 0;
  for (const line of text.split("\n")) {
    const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`).exec(line);
    if (m !== null) sum += Number(m[1]);
  }
  return sum;
}

const port = await freePort();
const sequencerDir = tempDatadir("redaction-sequencer");
let sequencer: RpcProcess | undefined;
let follower: RpcProcess | undefined;
let relay: { close(): void } | undefined;

after(async () => {
  await stopChild(follower?.child);
  await stopChild(sequencer?.child);
  relay?.close();
});

test("follow at --log-level debug: no key in any output line across a cut stream; connects and disconnects logged once each", async () => {
  sequencer = await startSequencer(sequencerDir, port);
  await until(
    "the sequencer's second block",
    () => head(sequencer!.url),
    (n) => n >= 2,
  );
  const r = await keyedRelay(port);
  relay = r;
  follower = await startCli([
    "follow",
    "--rpc",
    `http://127.0.0.1:${port}/rpc/${RPC_KEY}?apikey=${RPC_QUERY_KEY}`,
    "--flashblocks",
    `ws://flash:${STREAM_PASSWORD}@127.0.0.1:${r.port}/ws/${STREAM_PATH_KEY}?apikey=${STREAM_QUERY_KEY}`,
    "--datadir",
    tempDatadir("redaction-follower"),
    "--nats",
    `nats://flashnode:${NATS_PASSWORD}@127.0.0.1:${await freePort()}`,
    "--log-level",
    "debug",
  ]);
  const f = follower;
  await until(
    "the follower saying NATS is out of reach",
    async () => f.output(),
    (out) => out.includes("cannot reach NATS at"),
  );
  const connects = () => metric(f, "flashnode_follow_stream_connects_total");
  await until("the stream connected", connects, (n) => n >= 1);
  const before = await head(f.url);
  await until(
    "a block followed",
    () => head(f.url),
    (n) => n > before,
  );

  // The stream cut: the sequencer killed, then back on its port and datadir.
  await stopChild(sequencer.child, "SIGKILL");
  await until(
    "the disconnect counted",
    () => metric(f, "flashnode_follow_stream_disconnects_total"),
    (n) => n >= 1,
  );
  sequencer = await startSequencer(sequencerDir, port);
  await until("the stream connected again", connects, (n) => n >= 2);
  const resumed = await head(f.url);
  await until(
    "a block followed after the cut",
    () => head(f.url),
    (n) => n > resumed,
  );

  const lines = f.output().split("\n");
  assert.ok(
    lines.some((l) => l.startsWith("{") && (JSON.parse(l) as { level: number }).level === 20),
    "debug lines are printed (the follower's thread logs at the node's level)",
  );
  for (const line of lines)
    for (const secret of SECRETS) assert.ok(!line.includes(secret), `${secret} in: ${line}`);

  // Each event once: as many lines as the stream's own counters say there were events.
  const logged = (re: RegExp) =>
    f
      .output()
      .split("\n")
      .filter((l) => l.startsWith("{") && re.test((JSON.parse(l) as { msg: string }).msg)).length;
  const counts = async () => ({
    connectLines: logged(/^flashblocks stream connected/),
    connects: await connects(),
    disconnectLines: logged(/^flashblocks stream disconnected/),
    disconnects: await metric(f, "flashnode_follow_stream_disconnects_total"),
  });
  const seen = await until(
    "one line per connect and per disconnect",
    counts,
    (c) => c.connectLines === c.connects && c.disconnectLines === c.disconnects,
    10_000,
  );
  assert.ok(seen.connects >= 2 && seen.disconnects >= 1, JSON.stringify(seen));
});
