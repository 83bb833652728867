// A throwaway nats-server with JetStream for replication tests. The server comes from Debian's
// `nats-server` package (.ci/run installs it); a machine without it fails with how to get it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../bench/compare/peers.ts";
import { tempDatadir } from "./fixtures.ts";

export type NatsServer = {
  readonly url: string;
  /** The running server's process id (undefined while stopped). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
  /** Starts it again on the same port and store (after stop). */
  restart(): Promise<void>;
};

export function natsServerBinary(): string {
  for (const candidate of ["/usr/sbin/nats-server", "/usr/bin/nats-server"])
    if (existsSync(candidate)) return candidate;
  const which = spawnSync("sh", ["-c", "command -v nats-server"], { encoding: "utf8" });
  const found = which.stdout.trim();
  if (which.status === 0 && found !== "") return found;
  throw new Error(
    "nats-server is not installed: `apt-get install -y nats-server` (Debian's package, 2.9 or later, JetStream built in); .ci/run installs it when missing",
  );
}

/** How long a nats-server may take to say it is ready (generous: the machine may be loaded). */
const READY_MS = 60_000;

type Launched = { readonly child: ChildProcess; readonly port: number };

/**
 * Starts nats-server and waits for its "Server is ready" line (or its exit). `port` -1 lets the
 * server pick a free port (read from its log): a port picked beforehand can be taken by another
 * test file before the server binds it.
 */
function launch(port: number, dir: string, extra: string[] = []): Promise<Launched> {
  const child = spawn(
    natsServerBinary(),
    ["-js", "-sd", join(dir, "js"), "-a", "127.0.0.1", "-p", String(port), ...extra],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  // Killed with the test process, whatever the test's after() managed to do.
  const kill = () => child.kill("SIGKILL");
  process.once("exit", kill);
  child.once("exit", () => process.off("exit", kill));
  return new Promise((resolve, reject) => {
    let log = "";
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`nats-server ${why}:\n${log}`));
    };
    const timer = setTimeout(() => fail(`was not ready within ${READY_MS / 1000} s`), READY_MS);
    const onExit = (code: number | null) => fail(`exited (${code}) before it was ready`);
    child.once("exit", onExit);
    child.stderr?.on("data", (c: Buffer) => {
      log += c.toString();
      if (!log.includes("Server is ready")) return;
      const listening = /Listening for client connections on [\d.]+:(\d+)/.exec(log)?.[1];
      clearTimeout(timer);
      child.off("exit", onExit);
      resolve({ child, port: Number(listening ?? port) });
    });
  });
}

/**
 * One nats-server with JetStream. `maxPayload`: the largest message it takes (its config's
 * max_payload; 1 MiB by default).
 */
export async function startNatsServer(o: { maxPayload?: number } = {}): Promise<NatsServer> {
  const dir = tempDatadir("nats");
  const extra: string[] = [];
  if (o.maxPayload !== undefined) {
    const config = join(dir, "nats.conf");
    mkdirSync(dir, { recursive: true });
    writeFileSync(config, `max_payload: ${o.maxPayload}\n`);
    extra.push("-c", config);
  }
  const first = await launch(-1, dir, extra);
  const port = first.port;
  let child: ChildProcess | undefined = first.child;
  return {
    url: `nats://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    async stop() {
      const running = child;
      child = undefined;
      if (running === undefined || running.exitCode !== null) return;
      const exited = new Promise((resolve) => running.once("exit", resolve));
      running.kill("SIGTERM");
      await exited;
    },
    async restart() {
      // The same port, so that clients reconnect to the URL they know.
      child = (await launch(port, dir, extra)).child;
    },
  };
}

export type NatsCluster = {
  /** Client URLs of the nodes, in node order. */
  readonly urls: readonly string[];
  /** Server names (`n0`, `n1`, …): what JetStream reports as a stream's leader. */
  readonly names: readonly string[];
  /** SIGKILLs node `i`. */
  kill(i: number): Promise<void>;
  stop(): Promise<void>;
};

/** `size` nats-servers routed into one JetStream cluster (RAFT), each with its own store. */
export async function startNatsCluster(size: number): Promise<NatsCluster> {
  // Route ports must be known to every node before it starts, so they are picked beforehand:
  // one taken meanwhile by another test file makes that server exit, and the cluster is tried
  // again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryCluster(size);
    } catch (e) {
      if (attempt >= 3 || !/address already in use/.test(String(e))) throw e;
    }
  }
}

async function tryCluster(size: number): Promise<NatsCluster> {
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = await Promise.all(Array.from({ length: size }, () => freePort()));
  const names = ports.map((_, i) => `n${i}`);
  const launched = await Promise.allSettled(
    ports.map((port, i) =>
      launch(port, tempDatadir(`nats-${names[i]}`), [
        "-n",
        names[i]!,
        "--cluster_name",
        "flashnode-test",
        "--cluster",
        `nats://127.0.0.1:${routes[i]}`,
        "--routes",
        routes
          .filter((_, j) => j !== i)
          .map((r) => `nats://127.0.0.1:${r}`)
          .join(","),
      ]),
    ),
  );
  const children: Array<ChildProcess | undefined> = launched.map((r) =>
    r.status === "fulfilled" ? r.value.child : undefined,
  );
  const kill = async (i: number) => {
    const child = children[i];
    children[i] = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  const failure = launched.find((r) => r.status === "rejected");
  if (failure !== undefined) {
    await Promise.all(children.map((_, i) => kill(i)));
    throw failure.reason;
  }
  return {
    urls: ports.map((p) => `nats://127.0.0.1:${p}`),
    names,
    kill,
    async stop() {
      await Promise.all(children.map((_, i) => kill(i)));
    },
  };
}
