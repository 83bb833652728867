// Command-line plumbing shared by the commands: input files checked before anything is created
// on disk (the one-line usage error is in util/errors.ts, the nearest-name suggestion in
// util/nearestName.ts).
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { UsageError } from "../util/errors.ts";
import { isLoopback } from "../util/loopback.ts";

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

/** A listen address reachable only from this machine: a loopback address, or `localhost`. */
export function isLocalHost(host: string): boolean {
  return host === "localhost" || isLoopback(host);
}
