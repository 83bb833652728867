// The reader processes of a node started with --rpc-workers: the primary's child processes.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { Agent, request } from "node:http";
import { sleep } from "./devChain.ts";

/**
 * The primary's reader processes: its children running the CLI. Not every child is one: tsx may
 * start esbuild's service process beside them when its transform cache is cold.
 */
export function readerPids(primaryPid: number): number[] {
  // ps exits 1 when the process has no children.
  const ps = spawnSync("ps", ["--ppid", String(primaryPid), "-o", "pid=,args="], {
    encoding: "utf8",
  });
  return (ps.stdout ?? "")
    .split("\n")
    .filter((line) => line.includes("flashnode"))
    .map((line) => Number.parseInt(line.trim(), 10))
    .filter((n) => n > 0);
}

/**
 * Polls until `count` readers run and `killed` is not among them, or the deadline; the pids
 * seen last.
 */
export async function waitForReplacement(
  primaryPid: number,
  killed: number,
  count: number,
  timeoutMs: number,
): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  let now = readerPids(primaryPid);
  while ((now.length < count || now.includes(killed)) && Date.now() < deadline) {
    await sleep(100);
    now = readerPids(primaryPid);
  }
  return now;
}

/** One JSON-RPC call over `agent` (a keep-alive agent pins a connection, so one reader). */
export function postOn(url: string, agent: Agent | undefined, body: unknown): Promise<unknown> {
  const text = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: "POST",
        agent: agent ?? false,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) },
        timeout: 10_000,
      },
      (res) => {
        let data = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => {
          data += c;
        });
        res.on("end", () => resolve(JSON.parse(data)));
      },
    );
    req.on("error", reject);
    req.end(text);
  });
}

/** The result of one call over `agent`; a JSON-RPC error throws. */
export async function rpcOn(
  url: string,
  agent: Agent | undefined,
  method: string,
  params: unknown[],
): Promise<unknown> {
  const r = (await postOn(url, agent, { jsonrpc: "2.0", id: 1, method, params })) as {
    result?: unknown;
    error?: { message: string };
  };
  if (r.error !== undefined) throw new Error(`${method}: ${r.error.message}`);
  return r.result;
}

/** Two keep-alive connections: the cluster hands them to different readers. */
export function readerAgents(): Agent[] {
  return [0, 1].map(() => new Agent({ keepAlive: true, maxSockets: 1 }));
}

/**
 * Installs block filters through fresh connections until `count` different readers hold one
 * (a filter id names its reader's slot), then removes them: those readers take connections.
 * What a test waits for after a reader was replaced, instead of a guess at how long it takes.
 */
export async function waitForListeningReaders(
  url: string,
  count: number,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const slots = new Set<string>();
  const ids: string[] = [];
  while (slots.size < count) {
    if (Date.now() > deadline)
      throw new Error(`only ${slots.size} of ${count} readers answered within ${timeoutMs} ms`);
    const id = (await rpcOn(url, undefined, "eth_newBlockFilter", [])) as string;
    ids.push(id);
    slots.add(id.slice(0, 4));
  }
  for (const id of ids) await rpcOn(url, undefined, "eth_uninstallFilter", [id]);
}

type PendingBlock = { number: string; transactions: string[] };

/**
 * Reads the pending block with `read(i)` (the caller alternates readers) until `enough(reads)`,
 * asserting it never goes backwards (block number, then transaction count). Returns the number
 * of reads and the first and last block numbers seen. The deadline only turns a stuck node
 * into a failure.
 */
export async function assertPendingMonotonic(
  read: (i: number) => Promise<unknown>,
  enough: (reads: number) => boolean,
  timeoutMs = 120_000,
): Promise<{ reads: number; first: number; last: number }> {
  let last: [number, number] = [0, 0];
  let first = -1;
  let reads = 0;
  const deadline = Date.now() + timeoutMs;
  while (!enough(reads)) {
    assert.ok(Date.now() < deadline, `still reading after ${timeoutMs} ms (${reads} reads)`);
    const block = (await read(reads)) as PendingBlock;
    const seen: [number, number] = [Number(block.number), block.transactions.length];
    assert.ok(
      seen[0] > last[0] || (seen[0] === last[0] && seen[1] >= last[1]),
      `pending went from block ${last[0]} with ${last[1]} txs to block ${seen[0]} with ${seen[1]}`,
    );
    if (first < 0) first = seen[0];
    last = seen;
    reads++;
  }
  return { reads, first, last: last[0] };
}
