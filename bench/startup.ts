// Time to first answer: from spawning a node to its first successful eth_blockNumber answer,
// repeated, median. flashnode as users start it (`npm start`, `node bin/flashnode.js dev`, on a
// new datadir and on one that holds a chain) and anvil the same way.
//
//   npm run bench:startup [-- --runs N] [--only flashnode|anvil] [--root DIR]
//
// --root: measure the checkout in DIR instead (its `npm start`, its bin/flashnode.js): how the
// figures before a change were taken, e.g. `git archive <commit> | tar -x -C DIR` with this
// checkout's node_modules linked into DIR.
//
// The probe asks every 5 ms on a fresh connection; a refused connection or a non-result answer
// is "not yet". Each run gets its own port and datadir; the process (group) is stopped with
// SIGTERM and waited for before the next run starts.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: flags } = parseArgs({
  options: {
    runs: { type: "string", default: "7" },
    only: { type: "string" },
    root: { type: "string" },
  },
});
const ROOT = resolve(flags.root ?? join(import.meta.dirname, ".."));
const ANVIL = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const BIN = join(ROOT, "bin/flashnode.js");
const PROBE_EVERY_MS = 5;
const GIVE_UP_MS = 60_000;

type Case = {
  readonly name: string;
  readonly node: "flashnode" | "anvil";
  /** The command for a port and a datadir; `prepare` runs once before the measured runs. */
  command(port: number, datadir: string): { file: string; args: string[] };
  /** Whether every run gets a new datadir (else one datadir, made by a first unmeasured run). */
  readonly freshDatadir: boolean;
};

const nodeBin = process.execPath;

const CASES: readonly Case[] = [
  {
    name: "npm start (new datadir)",
    node: "flashnode",
    freshDatadir: true,
    command: (port, datadir) => ({
      file: "npm",
      args: ["start", "--silent", "--", "--port", String(port), "--datadir", datadir],
    }),
  },
  {
    name: "npm start (datadir holding a chain)",
    node: "flashnode",
    freshDatadir: false,
    command: (port, datadir) => ({
      file: "npm",
      args: ["start", "--silent", "--", "--port", String(port), "--datadir", datadir],
    }),
  },
  {
    name: "node bin/flashnode.js dev (new datadir)",
    node: "flashnode",
    freshDatadir: true,
    command: (port, datadir) => ({
      file: nodeBin,
      args: [BIN, "dev", "--port", String(port), "--datadir", datadir],
    }),
  },
  {
    name: "node bin/flashnode.js dev --rpc-workers 1 (new datadir)",
    node: "flashnode",
    freshDatadir: true,
    command: (port, datadir) => ({
      file: nodeBin,
      args: [BIN, "dev", "--rpc-workers", "1", "--port", String(port), "--datadir", datadir],
    }),
  },
  {
    name: "node bin/flashnode.js dev --rpc-workers 2 (new datadir)",
    node: "flashnode",
    freshDatadir: true,
    command: (port, datadir) => ({
      file: nodeBin,
      args: [BIN, "dev", "--rpc-workers", "2", "--port", String(port), "--datadir", datadir],
    }),
  },
  {
    name: "anvil",
    node: "anvil",
    freshDatadir: true,
    command: (port) => ({ file: ANVIL, args: ["--port", String(port), "--silent"] }),
  },
];

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const address = s.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      s.close(() => ok(port));
    });
  });
}

async function answers(port: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/`, {
      method: "POST",
      headers: { "content-type": "application/json", connection: "close" },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}',
    });
    const body = (await res.json()) as { result?: unknown };
    return typeof body.result === "string";
  } catch {
    return false;
  }
}

/** Stops the process group (npm starts a shell that starts node) and waits until it is gone. */
async function stop(child: ChildProcess): Promise<void> {
  const group = child.pid;
  if (group === undefined) return;
  const alive = () => {
    try {
      process.kill(-group, 0);
      return true;
    } catch {
      return false;
    }
  };
  if (alive()) process.kill(-group, "SIGTERM");
  while (alive()) await new Promise((r) => setTimeout(r, 20));
}

const TICK_MS = 10; // Linux's USER_HZ is 100

/**
 * CPU time (ms, user + system, every thread) the process group has used so far, its reaped
 * children included: what a start costs whatever the machine's load, where the wall clock
 * also counts the wait for a core.
 */
function groupCpuMs(group: number): number {
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue; // gone meanwhile
    }
    // The fields after the command name (which may hold spaces) in parentheses.
    const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(f[2]) !== group) continue;
    ticks += Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
  }
  return ticks * TICK_MS;
}

type Run = { readonly wallMs: number; readonly cpuMs: number };

/** One run: ms from spawn to the first answer, and the CPU the node used by then. */
async function runOnce(c: Case, datadir: string): Promise<Run> {
  const port = await freePort();
  const { file, args } = c.command(port, datadir);
  const started = performance.now();
  const child = spawn(file, args, { cwd: ROOT, detached: true, stdio: "ignore" });
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  try {
    for (;;) {
      if (await answers(port)) {
        const wallMs = performance.now() - started;
        return { wallMs, cpuMs: child.pid === undefined ? 0 : groupCpuMs(child.pid) };
      }
      if (exited) throw new Error(`${c.name}: exited before answering`);
      if (performance.now() - started > GIVE_UP_MS) throw new Error(`${c.name}: no answer`);
      await new Promise((r) => setTimeout(r, PROBE_EVERY_MS));
    }
  } finally {
    await stop(child);
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

async function main(): Promise<void> {
  const runs = Number(flags.runs);
  const load = readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
  console.log(
    `${ROOT}, node ${process.version}; ${runs} runs per case; ms from spawn to the first answer (wall), and CPU ms the node used by then (median); load average ${load}`,
  );
  for (const c of CASES) {
    if (flags.only !== undefined && c.node !== flags.only) continue;
    const kept = c.freshDatadir ? undefined : mkdtempSync(join(tmpdir(), "flashnode-startup-"));
    // A datadir that holds a chain: one unmeasured run makes it.
    if (kept !== undefined) await runOnce(c, kept);
    const times: Run[] = [];
    for (let i = 0; i < runs; i++) {
      const datadir = kept ?? mkdtempSync(join(tmpdir(), "flashnode-startup-"));
      const dir = kept === undefined ? join(datadir, "dev") : datadir;
      try {
        times.push(await runOnce(c, dir));
      } finally {
        if (kept === undefined) rmSync(datadir, { recursive: true, force: true });
      }
    }
    if (kept !== undefined) rmSync(kept, { recursive: true, force: true });
    const wall = times.map((t) => t.wallMs);
    const fmt = (x: number) => x.toFixed(0).padStart(6);
    console.log(
      `${c.name.padEnd(56)} median ${fmt(median(wall))}  min ${fmt(Math.min(...wall))}  max ${fmt(Math.max(...wall))}  cpu ${fmt(median(times.map((t) => t.cpuMs)))}`,
    );
  }
}

await main();
