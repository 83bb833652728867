// Ending the processes a test started: it waits for them, so that nothing is left running
// (or writing into a datadir being removed) when the test process exits.
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";

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
