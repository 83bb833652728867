// What "the datadir is as it was" compares: every file under a directory, its size and content
// hash. LMDB's lock file is left out: any open of an archive, a read-only one too, updates its
// reader table.
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

export function dirContents(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true }) as string[]) {
    const path = join(dir, name);
    if (statSync(path).isDirectory() || name === join("archive", "lock.mdb")) continue;
    const bytes = readFileSync(path);
    out[name] = `${bytes.length} ${createHash("sha256").update(bytes).digest("hex")}`;
  }
  return out;
}
