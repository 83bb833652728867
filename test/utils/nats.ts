// A throwaway nats-server with JetStream for replication tests. The server comes from Debian's
// `nats-server` package (.ci/run installs it); a machine without it fails with how to get it.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { freePort } from "../../bench/compare/peers.ts";
import { sleep } from "./devChain.ts";
import { tempDatadir } from "./fixtures.ts";

export type NatsServer = {
  readonly url: string;
  /** The running server's process id (undefined while stopped). */
  readonly pid: number | undefined;
  stop(): Promise<void>;
  /** Starts it again on the same port and store (after stop). */
  restart(): Promise<void>;
};

function natsServerBinary(): string {
  for (const candidate of ["/usr/sbin/nats-server", "/usr/bin/nats-server"])
    if (existsSync(candidate)) return candidate;
  const which = spawnSync("sh", ["-c", "command -v nats-server"], { encoding: "utf8" });
  const found = which.stdout.trim();
  if (which.status === 0 && found !== "") return found;
  throw new Error(
    "nats-server is not installed: `apt-get install -y nats-server` (Debian's package, 2.9 or later, JetStream built in); .ci/run installs it when missing",
  );
}

async function launch(port: number, dir: string, extra: string[] = []): Promise<ChildProcess> {
  const child = spawn(
    natsServerBinary(),
    ["-js", "-sd", join(dir, "js"), "-a", "127.0.0.1", "-p", String(port), ...extra],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let log = "";
  child.stderr?.on("data", (c: Buffer) => {
    log += c.toString();
  });
  for (let i = 0; i < 100 && !log.includes("Server is ready"); i++) await sleep(50);
  if (!log.includes("Server is ready")) {
    child.kill("SIGKILL");
    throw new Error(`nats-server did not start:\n${log}`);
  }
  return child;
}

export async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const dir = tempDatadir("nats");
  let child: ChildProcess | undefined = await launch(port, dir);
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
      child = await launch(port, dir);
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
  const ports = await Promise.all(Array.from({ length: size }, () => freePort()));
  const routes = await Promise.all(Array.from({ length: size }, () => freePort()));
  const names = ports.map((_, i) => `n${i}`);
  const children: Array<ChildProcess | undefined> = await Promise.all(
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
  const kill = async (i: number) => {
    const child = children[i];
    children[i] = undefined;
    if (child === undefined || child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGKILL");
    await exited;
  };
  return {
    urls: ports.map((p) => `nats://127.0.0.1:${p}`),
    names,
    kill,
    async stop() {
      await Promise.all(children.map((_, i) => kill(i)));
    },
  };
}
