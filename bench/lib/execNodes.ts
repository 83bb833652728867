// The processes of `npm run bench:exec`: `flashnode dev` and `flashnode follow` of one side
// (this checkout, "after", or the --before commit's) and `flashnode import` runs, each placed on a
// CPU with taskset (anvil is started by bench/compare/peers.ts, `startAnvil`, with --silent); and the OP-stack genesis the dev chains share, so the chain one of
// them builds can be imported by either side's `flashnode import`.
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { DEFAULT_DEV_L1, devL1Values } from "../../src/chain/op/l1Info.ts";
import { opPredeploys } from "../../src/chain/op/predeploys.ts";
import { hexToBytes } from "../../src/util/hex.ts";
import { startDevChild } from "./devChain.ts";
import { waitForOutput } from "./http.ts";

export type SideName = "after" | "before";
export type Side = {
  readonly name: SideName;
  readonly bin: string;
  /** Node's flags for this side's dev nodes (--cpu-prof). */
  readonly nodeFlags?: readonly string[];
};
export const API_KEY = "bench-exec-key-0001";
export const GAS_LIMIT = 300_000_000n;

export type RunningNode = {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The dedicated endpoint (every method, no rate limit). */
  readonly url: string;
  /** The base URL (…/ ; its /flashblocks and /metrics). */
  readonly base: string;
};

export const tempDir = (what: string) => mkdtempSync(join(tmpdir(), `flashnode-bench-${what}-`));

/**
 * An OP-stack dev genesis (Base's predeploys, the test accounts funded with 10,000 ETH each) with
 * a block gas limit of GAS_LIMIT, written to a file both sides' `dev` and `import` read.
 */
export async function writeOpGenesis(accounts: number): Promise<string> {
  const list = devAccounts(accounts);
  const timestamp = BigInt(Math.floor(Date.now() / 1000));
  const genesis = devGenesis({
    chainId: 31337n,
    fork: "osaka",
    accounts: list,
    balanceWei: 10_000n * 10n ** 18n,
    gasLimit: GAS_LIMIT,
    timestamp,
    op: await opPredeploys(devL1Values(DEFAULT_DEV_L1, timestamp), hexToBytes(list[0]!.address)),
  });
  const file = join(tempDir("genesis"), "genesis.json");
  writeFileSync(file, JSON.stringify(genesis));
  return file;
}

const common = ["--api-key", API_KEY, "--log-level", "warn", "--rate-limit", "0"];

/** `flashnode dev` of `side` on a new datadir with `args`, on `cpus` (undefined: anywhere). */
export async function startDev(
  side: Side,
  args: readonly string[],
  cpus: string | undefined,
): Promise<RunningNode> {
  const { child, url } = await startDevChild(
    [...common, "--rpc-workers", "1", "--gas-limit", String(GAS_LIMIT), ...args],
    tempDir(`dev-${side.name}`),
    {
      bin: side.bin,
      ...(cpus === undefined ? {} : { cpus }),
      ...(side.nodeFlags === undefined ? {} : { nodeFlags: side.nodeFlags }),
    },
  );
  child.stderr?.on("data", (c: Buffer) => process.stderr.write(`[dev ${side.name}] ${c}`));
  return { child, pid: nodePid(child), url: `${url}rpc/${API_KEY}`, base: url };
}

/** `flashnode follow` of `side` following `upstream` (its RPC and /flashblocks), on `cpus`. */
export async function startFollower(
  side: Side,
  upstream: RunningNode,
  cpus: string | undefined,
): Promise<RunningNode> {
  const argv = [
    // --cpu-prof: the follower is what the follower phase measures.
    ...(side.nodeFlags ?? []),
    side.bin,
    "follow",
    "--rpc",
    upstream.url,
    "--flashblocks",
    `${upstream.base.replace(/^http/, "ws")}flashblocks`,
    "--datadir",
    tempDir(`follow-${side.name}`),
    "--port",
    "0",
    "--rpc-workers",
    "1",
    ...common,
  ];
  const child =
    cpus === undefined
      ? spawn(process.execPath, argv, { stdio: ["ignore", "pipe", "pipe"] })
      : spawn("taskset", ["-c", cpus, process.execPath, ...argv], {
          stdio: ["ignore", "pipe", "pipe"],
        });
  const base = await waitForOutput(child, /JSON-RPC \(public\):\s+(\S+)/);
  child.stderr?.on("data", (c: Buffer) => process.stderr.write(`[follower ${side.name}] ${c}`));
  return { child, pid: nodePid(child), url: `${base}rpc/${API_KEY}`, base };
}

/** The node's own pid: taskset execs it, so the child's pid is the node's either way. */
function nodePid(child: ChildProcess): number {
  if (child.pid === undefined) throw new Error("the node did not start");
  return child.pid;
}

export async function stopNode(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 15_000);
  await exited;
  clearTimeout(timer);
}

export type ImportRun = {
  /** CPU seconds of the import process (user + system, all its threads). */
  readonly cpuSeconds: number;
  readonly wallSeconds: number;
  readonly output: string;
};

/**
 * `flashnode import` of `side` of `chainFile` into `datadir`, on `cpus`; its CPU time from the
 * shell's `times` (the children's rusage, to the millisecond), as the process is gone by then.
 */
export function runImport(
  side: Side,
  genesis: string,
  datadir: string,
  chainFile: string,
  cpus: string | undefined,
): Promise<ImportRun> {
  const cmd = [process.execPath, side.bin, "import", "--genesis", genesis, "--datadir", datadir];
  const argv = cpus === undefined ? cmd : ["taskset", "-c", cpus, ...cmd];
  const started = performance.now();
  return new Promise((ok, fail) => {
    execFile(
      "bash",
      ["-c", '"$@" 1>&2 || exit $?; times', "import", ...argv, chainFile],
      { encoding: "utf8", maxBuffer: 1 << 24 },
      (err, stdout, stderr) => {
        const wallSeconds = (performance.now() - started) / 1000;
        if (err !== null) return fail(new Error(`flashnode import (${side.name}): ${stderr}`));
        const cpuSeconds = childrenCpuSeconds(stdout);
        if (cpuSeconds === undefined)
          return fail(new Error(`no times in ${JSON.stringify(stdout)}`));
        ok({ cpuSeconds, wallSeconds, output: stderr });
      },
    );
  });
}

/**
 * The children's user + system seconds from bash's `times` (two lines, "0m0.012s 0m0.004s": the
 * shell's own, then its children's).
 */
export function childrenCpuSeconds(times: string): number | undefined {
  const m = /(\d+)m([\d.]+)s (\d+)m([\d.]+)s\s*$/.exec(times.trim());
  if (m === null || !times.trim().includes("\n")) return undefined;
  return Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4]);
}
