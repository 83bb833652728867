// The processes of a fleet, each on a machine of its own (test/utils/netns.ts): nats-servers
// routed into one JetStream cluster, and flashnode roles started through the CLI as users
// start them, listening on their machine's address.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { jetstreamManager } from "@nats-io/jetstream";
import { connect } from "@nats-io/transport-node";
import { HEADER, streamNames } from "../../src/replica/streams.ts";
import { pollUntil } from "./devChain.ts";
import { BIN, tempDatadir } from "./fixtures.ts";
import { natsServerBinary } from "./nats.ts";
import type { Network } from "./netns.ts";

/** Every flashnode of the fleet serves its dedicated tier at /rpc/<KEY> (eth_getBlockReceipts). */
export const KEY = "netns-fleet-key-0001";
const NATS_PORT = 4222;
const ROUTE_PORT = 6222;
const MONITOR_PORT = 8222;
const RPC_PORT = 8545;

function capture(child: ChildProcess): () => string {
  let text = "";
  const add = (c: Buffer) => {
    text += c.toString();
  };
  child.stdout?.on("data", add);
  child.stderr?.on("data", add);
  return () => text;
}

export type NatsNode = {
  readonly machine: string;
  readonly url: string;
  readonly child: ChildProcess;
};

/** One nats-server on each of `machines`, routed into one JetStream cluster; once it has a meta leader. */
export async function startNatsCluster(
  net: Network,
  machines: readonly string[],
): Promise<NatsNode[]> {
  const binary = natsServerBinary();
  const routes = machines.map((m) => `nats://${net.address(m)}:${ROUTE_PORT}`);
  const nodes = await Promise.all(
    machines.map(async (m, i) => {
      const address = net.address(m);
      const child = net.spawn(m, binary, [
        ...["-js", "-sd", tempDatadir(`netns-${m}`), "-n", m],
        ...["-a", address, "-p", String(NATS_PORT), "-m", String(MONITOR_PORT)],
        ...["--cluster_name", "netns-fleet", "--cluster", routes[i]!],
        ...["--routes", routes.filter((_, j) => j !== i).join(",")],
      ]);
      const output = capture(child);
      const exited = once(child, "exit").then(() => undefined);
      const ready = pollUntil(
        async () => output().includes("Server is ready"),
        (r) => r,
        60_000,
        50,
      );
      if ((await Promise.race([ready, exited])) !== true)
        throw new Error(`nats-server on ${m} exited at start:\n${output()}`);
      return { machine: m, url: `nats://${address}:${NATS_PORT}`, child };
    }),
  );
  // JetStream answers once the cluster has elected its meta leader.
  const nc = await connect({ servers: nodes.map((n) => n.url) });
  try {
    const jsm = await jetstreamManager(nc, { checkAPI: false });
    await pollUntil(
      () =>
        jsm.getAccountInfo().then(
          () => true,
          () => false,
        ),
      (ok) => ok,
      60_000,
      100,
    );
  } finally {
    await nc.close();
  }
  return nodes;
}

/** The addresses of the clients connected to a nats-server (its monitoring endpoint). */
export async function clientAddresses(net: Network, machine: string): Promise<string[]> {
  const res = await fetch(`http://${net.address(machine)}:${MONITOR_PORT}/connz`, {
    signal: AbortSignal.timeout(2_000),
  });
  const body = (await res.json()) as { connections?: { ip: string }[] };
  return (body.connections ?? []).map((c) => c.ip);
}

/** What a block stream holds: its first and last block, and its replicas' state. */
export async function blockStream(
  servers: readonly string[],
  prefix: string,
): Promise<{ first: number; last: number; replicas: { name: string; current: boolean }[] }> {
  const nc = await connect({ servers: [...servers], timeout: 2_000 });
  try {
    const jsm = await jetstreamManager(nc, { timeout: 2_000 });
    const stream = streamNames(prefix).blocks;
    const info = await jsm.streams.info(stream);
    const blockAt = async (seq: number) =>
      Number((await jsm.streams.getMessage(stream, { seq }))?.header.get(HEADER.block));
    return {
      first: await blockAt(info.state.first_seq),
      last: await blockAt(info.state.last_seq),
      replicas: [
        { name: info.cluster?.leader ?? "", current: info.cluster?.leader !== undefined },
        ...(info.cluster?.replicas ?? []).map((r) => ({ name: r.name, current: r.current })),
      ],
    };
  } finally {
    await nc.close();
  }
}

export type Flashnode = {
  readonly machine: string;
  /** Its base URL (/readyz, /flashblocks under it). */
  readonly base: string;
  /** Its dedicated endpoint. */
  readonly url: string;
  readonly child: ChildProcess;
  readonly args: readonly string[];
  output(): string;
};

/**
 * `flashnode <args>` on `machine`, listening on the machine's address; resolves once its banner
 * names its URL.
 */
export async function startFlashnode(
  net: Network,
  machine: string,
  args: readonly string[],
): Promise<Flashnode> {
  const child = net.spawn(machine, process.execPath, [
    BIN,
    ...args,
    ...["--host", net.address(machine), "--port", String(RPC_PORT)],
    ...["--rpc-workers", "1", "--api-key", KEY],
  ]);
  const output = capture(child);
  const exited = once(child, "exit").then(() => undefined);
  const found = pollUntil(
    async () => /JSON-RPC \(public\): +(http:\/\/[\d.]+:\d+\/)/.exec(output()),
    (m) => m !== null,
    120_000,
    50,
  );
  const m = await Promise.race([found, exited]);
  if (m === undefined || m === null)
    throw new Error(`flashnode ${args[0]} on ${machine} exited at start:\n${output()}`);
  return { machine, base: m[1]!, url: `${m[1]}rpc/${KEY}`, child, args, output };
}

/** Signals `node` and waits for its exit. */
export async function stopFlashnode(node: Flashnode, signal: NodeJS.Signals): Promise<void> {
  const { child } = node;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  await exited;
}

/** What /readyz says of a follower's role ("leader" or "standby"), or undefined. */
export async function roleOf(node: Flashnode): Promise<string | undefined> {
  try {
    const res = await fetch(`${node.base}readyz`, { signal: AbortSignal.timeout(1_000) });
    return ((await res.json()) as { publisher?: string }).publisher;
  } catch {
    return undefined;
  }
}

/** Several calls in one JSON-RPC batch; their results in order (an error's message as `error`). */
export async function batch(
  url: string,
  calls: readonly (readonly [string, readonly unknown[]])[],
): Promise<unknown[]> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(
      calls.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params })),
    ),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { id: number; result?: unknown; error?: unknown }[];
  return [...body]
    .sort((a, b) => a.id - b.id)
    .map((r) => (r.error !== undefined ? { error: r.error } : r.result));
}
