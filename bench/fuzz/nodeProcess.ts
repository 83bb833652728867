// The node under test when the harness starts its own: a `flashnode dev` child with a temporary
// datadir, its last output lines, its exit, and the cases in flight when it died.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { FuzzCase } from "./cases/types.ts";
import { sleep } from "./util.ts";

const ROOT = resolve(import.meta.dirname, "../..");

export type Child = { proc: ChildProcess; dir: string; log: string[]; exited?: string };

function pushLog(log: string[], chunk: Buffer): void {
  for (const line of chunk.toString("utf8").split("\n")) if (line.trim() !== "") log.push(line);
  if (log.length > 60) log.splice(0, log.length - 60);
}

/** A class: the child, its exit and the in-flight list are state shared by the whole run. */
export class NodeProcess {
  /** The current child; undefined with --url (no process to watch). */
  child: Child | undefined;
  /** Set while the harness itself stops the child, so that exit is no crash. */
  stopping = false;
  /** Cases being run, by index; what was in flight when the node died is the suspect list. */
  readonly inflight = new Map<number, FuzzCase>();
  crashInflight: FuzzCase[] | undefined;
  /** FLASHNODE_RATE_LIMIT of the child (--node-rate-limit). */
  private readonly rateLimit: string;

  constructor(rateLimit: string) {
    this.rateLimit = rateLimit;
  }

  async start(): Promise<{ url: string; dedicated: string | undefined }> {
    const dir = mkdtempSync(join(tmpdir(), "flashnode-fuzz-"));
    const proc = spawn(
      process.execPath,
      [
        join(ROOT, "bin/flashnode.js"),
        "dev",
        "--datadir",
        dir,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
      ],
      {
        cwd: ROOT,
        stdio: ["ignore", "pipe", "pipe"],
        // Public rate limiting would answer most of the fuzz with 429 (0 = unlimited); an env
        // variable, so a node without that setting still starts.
        env: { ...process.env, FLASHNODE_RATE_LIMIT: this.rateLimit },
      },
    );
    const c: Child = { proc, dir, log: [] };
    this.child = c;
    let out = "";
    proc.stderr?.on("data", (d: Buffer) => pushLog(c.log, d));
    proc.stdout?.on("data", (d: Buffer) => {
      out += d.toString("utf8");
      pushLog(c.log, d);
    });
    proc.on("exit", (code, signal) => {
      c.exited = signal !== null ? `signal ${signal}` : `exit code ${code}`;
      if (!this.stopping) this.crashInflight = [...this.inflight.values()];
    });
    const deadline = Date.now() + 120_000;
    for (;;) {
      const m = /JSON-RPC \(public\):\s+(\S+)/.exec(out);
      if (m !== null) {
        await sleep(300); // the rest of the banner (the dedicated URL) is in the same write
        const d = /JSON-RPC \(dedicated\):\s+(http:\/\/\S+\/rpc\/[\w-]+)(?:\s|$)/.exec(out);
        return { url: m[1]!, dedicated: d?.[1] };
      }
      if (c.exited !== undefined)
        throw new Error(`flashnode dev ${c.exited}:\n${c.log.join("\n")}`);
      if (Date.now() > deadline) throw new Error("flashnode dev did not print its URL in 120 s");
      await sleep(50);
    }
  }

  async stop(): Promise<void> {
    const c = this.child;
    if (c === undefined) return;
    this.stopping = true;
    if (c.exited === undefined) {
      c.proc.kill("SIGTERM");
      const deadline = Date.now() + 15_000;
      while (c.exited === undefined && Date.now() < deadline) await sleep(50);
      if (c.exited === undefined) c.proc.kill("SIGKILL");
    }
    rmSync(c.dir, { recursive: true, force: true });
  }

  /** Resident memory of the child in MiB (Linux), for the summary. */
  rssMiB(): number | undefined {
    const pid = this.child?.proc.pid;
    if (pid === undefined || this.child?.exited !== undefined) return undefined;
    try {
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
      return m === null ? undefined : Math.round(Number(m[1]) / 1024);
    } catch {
      return undefined;
    }
  }
}
