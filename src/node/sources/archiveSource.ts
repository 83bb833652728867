// The archive itself: `serve`'s whole chain (it does not move), and what every other source
// fills. Opened once per process.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createChainStore } from "../../store/chainStore.ts";
import { openKvEnv } from "../../store/lmdb.ts";
import { FlashnodeError } from "../../util/errors.ts";
import type { Archive } from "../reader.ts";

export class DatadirError extends FlashnodeError {
  readonly code = "DATADIR";
}

export function openArchive(datadir: string, readOnly: boolean): Archive {
  const kv = openKvEnv(datadir, { readOnly });
  return { kv, store: createChainStore(kv) };
}

/** The datadir holds an archive (else the operator is told to import one first). */
export function assertArchive(datadir: string): void {
  if (!existsSync(join(datadir, "archive")))
    throw new DatadirError(`no archive in ${datadir}: run \`flashnode import\` first`);
}

/** `serve`'s archive: read-only, and holding a chain. */
export async function servedArchive(datadir: string): Promise<Archive> {
  assertArchive(datadir);
  const archive = openArchive(datadir, true);
  if (archive.store.chainConfig() === undefined || archive.store.headNumber() === undefined) {
    await archive.kv.close();
    throw new DatadirError(`the archive in ${datadir} holds no chain yet`);
  }
  return archive;
}
