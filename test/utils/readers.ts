// The reader processes of a node started with --rpc-workers: the primary's child processes.
import { execFileSync } from "node:child_process";
import { sleep } from "./devChain.ts";

export function readerPids(primaryPid: number): number[] {
  const out = execFileSync("ps", ["--ppid", String(primaryPid), "-o", "pid="], {
    encoding: "utf8",
  });
  return out
    .split("\n")
    .map((s) => Number(s.trim()))
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
