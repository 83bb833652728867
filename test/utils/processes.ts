// Real processes for end-to-end tests: `flashnode` through its CLI and the real anvil (the
// devDependency), each started as a user starts it, asked over JSON-RPC, and stopped with Ctrl-C
// (both write their --dump-state file then); and their end, waited for (stopChild), so nothing is
// left running, or writing into a datadir being removed, when the test process exits.
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { freePort, waitForRpc } from "../../bench/compare/peers.ts";
import { pollUntil } from "./devChain.ts";
import { BIN, ROOT } from "./fixtures.ts";

export const ANVIL_BIN = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");

export type RpcProcess = {
  readonly url: string;
  readonly child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  rpc<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  /** Ctrl-C, and its exit code once it has exited. */
  interrupt(): Promise<number | null>;
};

function rpcOver(url: string) {
  let id = 0;
  return async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error !== undefined)
      throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
    return body.result as T;
  };
}

function started(child: ChildProcess, url: string, output: () => string): RpcProcess {
  return {
    url,
    child,
    output,
    rpc: rpcOver(url),
    async interrupt() {
      if (child.exitCode !== null) return child.exitCode;
      const exit = once(child, "exit") as Promise<[number | null]>;
      child.kill("SIGINT");
      return (await exit)[0];
    },
  };
}

function capture(child: ChildProcess): () => string {
  let text = "";
  child.stdout?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    text += c.toString();
  });
  return () => text;
}

/**
 * `flashnode <args>` through the CLI, on a free port (or `port`: a node restarted where its
 * clients know it); resolves once its banner names its URL.
 */
export async function startCli(
  args: readonly string[],
  opts: { readonly port?: number } = {},
): Promise<RpcProcess> {
  const port = String(opts.port ?? 0);
  const child = spawn(process.execPath, [BIN, ...args, "--port", port, "--rpc-workers", "1"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = capture(child);
  const exited = once(child, "exit").then(() => undefined);
  const found = pollUntil(
    async () => /JSON-RPC \(public\): +(http:\/\/127\.0\.0\.1:\d+\/)/.exec(output()),
    (m) => m !== null,
    120_000,
    50,
  );
  const m = await Promise.race([found, exited]);
  if (m === undefined || m === null) throw new Error(`flashnode exited at start:\n${output()}`);
  return started(child, m[1]!, output);
}

/**
 * The real anvil with `args`, on a free port (or `port`: an upstream restarted where its clients
 * know it), once it answers.
 */
export async function startAnvilProcess(
  args: readonly string[],
  opts: { readonly port?: number } = {},
): Promise<RpcProcess> {
  const port = opts.port ?? (await freePort());
  const child = spawn(ANVIL_BIN, ["--port", String(port), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output = capture(child);
  const url = `http://127.0.0.1:${port}/`;
  await waitForRpc(url, child);
  return started(child, url, output);
}

/** Signals `child` and waits for its exit; SIGKILL if it has not exited after `graceMs`. */
export async function stopChild(
  child: ChildProcess | undefined,
  signal: NodeJS.Signals = "SIGTERM",
  graceMs = 30_000,
): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit");
  child.kill(signal);
  const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}

/** What a child prints, kept as it comes: its stdout, its stderr, and both in arrival order. */
export function captureOutput(child: ChildProcess): {
  stdout(): string;
  stderr(): string;
  all(): string;
} {
  let out = "";
  let err = "";
  let all = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
    all += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
    all += c.toString();
  });
  return { stdout: () => out, stderr: () => err, all: () => all };
}
