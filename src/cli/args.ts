// Command-line plumbing shared by the commands: the nearest-name suggestion, and input files
// checked before anything is created on disk.
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { UsageError } from "../util/errors.ts";

/** Levenshtein distance (small strings: flag and command names). */
export function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, substitution));
    }
    prev = row;
  }
  return prev[b.length]!;
}

/** The known name nearest to `input`, if it is near enough to be what was meant. */
export function nearest(input: string, known: readonly string[]): string | undefined {
  // A name cut short (`--block` for `--block-time`) is what was meant when only one fits.
  const prefixed = known.filter((k) => input.length >= 3 && k.startsWith(input));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const d = editDistance(input, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  // A third of the name may be wrong (typos, swapped letters).
  return bestDistance <= Math.max(2, Math.floor(input.length / 3)) ? best : undefined;
}

/** ` (did you mean X?)` or nothing. */
export function didYouMean(input: string, known: readonly string[], prefix = ""): string {
  const n = nearest(input, known);
  return n === undefined ? "" : ` (did you mean ${prefix}${n}?)`;
}

/** A JSON file named by a flag, read and parsed now, with a one-line error naming the flag. */
export function readJsonFile(flag: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    const why =
      code === "ENOENT"
        ? "no such file"
        : code === "EISDIR"
          ? "is a directory"
          : (e as Error).message;
    throw new UsageError(`--${flag} ${path}: ${why}`);
  }
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new UsageError(`--${flag} ${path} is not valid JSON: ${jsonErrorReason(e, text)}`);
  }
}

/**
 * JSON.parse's complaint, short: without the excerpt of the text V8 quotes, and with a line and
 * column instead of a character offset.
 */
export function jsonErrorReason(e: unknown, text: string): string {
  const message = (e as Error).message.replace(/, ".*" is not valid JSON$/s, "");
  const reason = message.charAt(0).toLowerCase() + message.slice(1);
  const at = /^(.*?)(?: in JSON)? at position (\d+)/s.exec(reason);
  if (at === null) return reason;
  const before = text.slice(0, Number(at[2]));
  const line = before.split("\n").length;
  const column = before.length - before.lastIndexOf("\n");
  return `${at[1]} at line ${line} column ${column}`;
}

/**
 * Fails with a one-line error when host:port cannot be listened on, before the node creates
 * anything on disk (the real listen happens later, after the datadir is open). Port 0 is probed
 * too: the host may still be no local address.
 */
export async function checkListenAddress(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once("error", (e: NodeJS.ErrnoException) =>
      reject(
        new UsageError(
          e.code === "EADDRINUSE"
            ? `port ${port} on ${host} is already in use (another node?): stop what holds it or choose another --port`
            : e.code === "EADDRNOTAVAIL"
              ? `cannot listen on ${host}: no such local address (--host)`
              : e.code === "ENOTFOUND" || e.code === "EAI_AGAIN"
                ? `cannot listen on ${host}: no such host name (--host)`
                : e.code === "EACCES"
                  ? `not allowed to listen on ${host}:${port} (ports below 1024 need privileges)`
                  : `cannot listen on ${host}:${port}: ${e.message}`,
        ),
      ),
    );
    probe.listen(port, host, () => probe.close(() => resolve()));
  });
}
