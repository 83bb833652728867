// Checks of a datadir before a node opens it for writing, each failing with one clear line:
// another flashnode process holds it, it is read-only, the disk is (nearly) full.
import {
  accessSync,
  closeSync,
  constants,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { FlashnodeError } from "../util/errors.ts";
import { processAlive } from "../util/processAlive.ts";

export class DatadirUnavailableError extends FlashnodeError {
  readonly code = "DATADIR_UNAVAILABLE";
}

/** Below this, a node refuses to start rather than fail on its first block write. */
export const MIN_FREE_BYTES = 64 * 1024 * 1024;

export type DatadirLock = { release(): void };

/**
 * The outermost directory of `path` that does not exist yet (`path` itself, or an ancestor
 * `mkdir -p` would create), or undefined when it exists: what to remove to leave the disk as it
 * was when a start fails.
 */
export function missingRoot(path: string): string | undefined {
  let missing: string | undefined;
  for (let p = resolve(path); !existsSync(p); p = dirname(p)) {
    missing = p;
    if (dirname(p) === p) break;
  }
  return missing;
}

/** The LOCK files this process holds: removed as it exits, however it exits (process.exit). */
const heldLocks = new Set<string>();
let releasingAtExit = false;

function holdLock(path: string): void {
  if (!releasingAtExit) process.on("exit", releaseHeldLocks);
  releasingAtExit = true;
  heldLocks.add(path);
}

function releaseHeldLocks(): void {
  for (const path of heldLocks) rmSync(path, { force: true });
  heldLocks.clear();
}

/** What a start found at a datadir, to leave it so when the start fails. */
export type DatadirAsFound = {
  /** Removes what the start made there: the datadir itself if it made it, else its new entries. */
  restore(): void;
};

/** Notes what is at `datadir` now (before a start writes anything there). */
export function datadirAsFound(datadir: string): DatadirAsFound {
  const created = missingRoot(datadir);
  if (created !== undefined)
    return { restore: () => rmSync(created, { recursive: true, force: true }) };
  let entries: Set<string>;
  try {
    entries = new Set(readdirSync(datadir));
  } catch {
    return { restore: () => {} }; // not a directory: the start refuses it, changing nothing
  }
  return {
    restore() {
      for (const e of readdirSync(datadir))
        if (!entries.has(e)) rmSync(join(datadir, e), { recursive: true, force: true });
    },
  };
}

/**
 * Takes the datadir for this process (a LOCK file holding our pid). A lock left by a process
 * that no longer exists (killed) is taken over.
 */
export function lockDatadir(datadir: string): DatadirLock {
  const created = missingRoot(datadir);
  // A datadir refused here is left as it was found: one this call made goes again.
  const refuse = (message: string) => {
    if (created !== undefined) rmSync(created, { recursive: true, force: true });
    return new DatadirUnavailableError(message);
  };
  try {
    mkdirSync(datadir, { recursive: true });
    accessSync(datadir, constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw refuse(
      code === "EACCES" || code === "EROFS" || code === "EPERM"
        ? `datadir ${datadir} is not writable (${code}): choose another --datadir or fix its permissions`
        : `cannot use datadir ${datadir}: ${(e as Error).message}`,
    );
  }
  const free = (() => {
    try {
      const s = statfsSync(datadir);
      return s.bavail * s.bsize;
    } catch {
      return Number.POSITIVE_INFINITY;
    }
  })();
  if (free < MIN_FREE_BYTES) {
    throw refuse(
      `the disk of datadir ${datadir} is full (${Math.floor(free / 1024 / 1024)} MiB free, need at least ${MIN_FREE_BYTES / 1024 / 1024} MiB)`,
    );
  }
  const path = join(datadir, "LOCK");
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeSync(fd, String(process.pid));
      closeSync(fd);
      holdLock(path);
      return {
        release() {
          heldLocks.delete(path);
          rmSync(path, { force: true });
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
        throw refuse(`cannot lock datadir ${datadir}: ${(e as Error).message}`);
      }
      const pid = Number(readFileSync(path, "utf8").trim());
      if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && processAlive(pid)) {
        throw new DatadirUnavailableError(
          `datadir ${datadir} is in use by another flashnode process (pid ${pid}); stop it or choose another --datadir`,
        );
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw refuse(`cannot lock datadir ${datadir}`);
}
