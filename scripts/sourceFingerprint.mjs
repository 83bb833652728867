// What dist/ is built from, and a fingerprint of it (each file's path, size and modification
// time): shared by scripts/build.mjs, which records it in dist/BUILD, and bin/flashnode.js, which
// runs dist/ only when the sources still match it. Stats every file: a few ms for src/.
import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The files of src/ that the node runs (tests are not built), relative, sorted. */
export function sourceFiles(src) {
  return readdirSync(src, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && !e.name.endsWith(".test.ts"))
    .map((e) => join(e.parentPath ?? e.path, e.name).slice(src.length + 1))
    .sort();
}

export function fingerprint(src, files) {
  const hash = createHash("sha256");
  for (const file of files) {
    const s = statSync(join(src, file));
    hash.update(`${file}\0${s.size}\0${s.mtimeMs}\n`);
  }
  return hash.digest("hex");
}
