// The servers `npm run bench` compares, each at its best: anvil with --silent and its output
// ignored (its per-request log, piped, slows it several-fold), flashnode at log level warn, and
// the bare node:http ceiling; and their CPU placement (taskset).
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dirname, "../..");
const ANVIL = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** Polls until the URL answers a JSON-RPC call (any answer), for servers that print nothing. */
export async function waitForRpc(url: string, child: ChildProcess, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: the server exited (${child.exitCode})`);
    try {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      });
      await res.text();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms`);
}

/**
 * anvil (always --silent), blocks only on evm_mine unless `automine`; `cpus` places it and its
 * threads (taskset -c).
 */
export async function startAnvil(
  opts: {
    readonly accounts?: number;
    readonly gasLimit?: bigint;
    readonly automine?: boolean;
    readonly cpus?: string;
  } = {},
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const args = [
    "--silent",
    "--port",
    String(port),
    ...(opts.automine === true ? [] : ["--no-mining"]),
    "--chain-id",
    "31337",
    "--accounts",
    String(opts.accounts ?? 10),
    "--balance",
    "10000",
    "--gas-limit",
    String(opts.gasLimit ?? 60_000_000n),
  ];
  const child =
    opts.cpus === undefined
      ? spawn(ANVIL, args, { stdio: "ignore" })
      : spawn("taskset", ["-c", opts.cpus, ANVIL, ...args], { stdio: "ignore" });
  const url = `http://127.0.0.1:${port}/`;
  await waitForRpc(url, child);
  return { child, url };
}

/** The bare node:http server in `processes` processes, started on `cpus` (taskset -c). */
export async function startBare(
  response: string,
  processes: number,
  cpus: string,
  workUs = 0,
): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const file = join(ROOT, "node_modules", `.flashnode-bench-response-${port}.json`);
  writeFileSync(file, response);
  const child = spawn(
    "taskset",
    [
      "-c",
      cpus,
      process.execPath,
      "--import",
      "tsx",
      join(import.meta.dirname, "bareServer.ts"),
      String(port),
      String(processes),
      file,
      String(workUs),
    ],
    { stdio: "ignore", cwd: ROOT },
  );
  const url = `http://127.0.0.1:${port}/`;
  await waitForRpc(url, child);
  return { child, url };
}

/** The process and all its descendants (a node's reader processes, the ceiling's cluster). */
export function processTree(pid: number): number[] {
  const parents = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // Field 4 of /proc/PID/stat is the parent; the name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const list = parents.get(ppid) ?? [];
      list.push(Number(entry));
      parents.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  const out = [pid];
  for (let i = 0; i < out.length; i++) out.push(...(parents.get(out[i]!) ?? []));
  return out;
}

/**
 * Moves a running process, all its threads and all its child processes onto `cpus` (children
 * forked before the call do not inherit a new affinity). The pinned mode runs one process per
 * server, so this only matters if a server forks helpers.
 */
export function pin(pid: number, cpus: string): void {
  for (const p of processTree(pid)) {
    execFileSync("taskset", ["-a", "-cp", cpus, String(p)], { stdio: "ignore" });
  }
}

/**
 * Time the processes under `pid` (every thread) spent runnable but not running, in ms
 * (/proc/…/schedstat, second field): a process waiting for a CPU cannot read its sockets or pipes.
 */
export function runQueueWaitMs(pid: number): number {
  let ns = 0;
  for (const p of processTree(pid)) {
    let tasks: string[] = [];
    try {
      tasks = readdirSync(`/proc/${p}/task`);
    } catch {
      continue; // gone
    }
    for (const t of tasks) {
      try {
        ns += Number(readFileSync(`/proc/${p}/task/${t}/schedstat`, "utf8").split(" ")[1]);
      } catch {}
    }
  }
  return ns / 1e6;
}
