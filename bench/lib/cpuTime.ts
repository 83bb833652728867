// CPU time of a process's threads from /proc, to the nanosecond: the first field of
// /proc/<pid>/task/<tid>/schedstat is the time the thread ran (user and system). /proc/…/stat
// counts in clock ticks (10 ms), too coarse for an `evm_mine` of a few tens of milliseconds.
import { readdirSync, readFileSync } from "node:fs";
import { processTree } from "../compare/peers.ts";

/**
 * `read(path)` of each thread of `pid` (`path`: its /proc/<pid>/task/<tid> directory), by thread
 * id; a thread that exits meanwhile is left out, and a gone process has none.
 */
export function perThread(pid: number, read: (taskDir: string) => number): Map<number, number> {
  const out = new Map<number, number>();
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return out; // gone
  }
  for (const t of tasks) {
    try {
      out.set(Number(t), read(`/proc/${pid}/task/${t}`));
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Nanoseconds each thread of `pid` has run so far, by thread id. */
export function threadRunNs(pid: number): Map<number, number> {
  return perThread(pid, (dir) => Number(readFileSync(`${dir}/schedstat`, "utf8").split(" ")[0]));
}

/** Nanoseconds run so far by every thread of `pid` and of its child processes. */
export function treeRunNs(pid: number): number {
  let ns = 0;
  for (const p of processTree(pid)) for (const v of threadRunNs(p).values()) ns += v;
  return ns;
}

/** A process's threads at one moment, to difference with a later one. */
export type ThreadSample = { readonly pid: number; readonly byThread: Map<number, number> };

export function sampleThreads(pid: number): ThreadSample {
  return { pid, byThread: threadRunNs(pid) };
}

/**
 * Seconds run between two samples by the busiest thread other than the process's main thread
 * (the sequencer's or the follower's worker while it executes a load), and by all threads.
 */
export function busiestWorker(
  before: ThreadSample,
  after: ThreadSample,
): { tid: number; seconds: number; allSeconds: number } {
  let tid = -1;
  let best = 0;
  let all = 0;
  for (const [t, ns] of after.byThread) {
    const used = ns - (before.byThread.get(t) ?? 0);
    all += used;
    if (t !== after.pid && used > best) {
      best = used;
      tid = t;
    }
  }
  return { tid, seconds: best / 1e9, allSeconds: all / 1e9 };
}

/** Seconds one thread ran between two samples. */
export function threadSeconds(before: ThreadSample, after: ThreadSample, tid: number): number {
  return ((after.byThread.get(tid) ?? 0) - (before.byThread.get(tid) ?? 0)) / 1e9;
}
