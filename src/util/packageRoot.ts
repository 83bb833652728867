// The package's root directory (where package.json is), for the files the node reads from the
// repository at run time (the live page, the sample genesis). Found by walking up from this
// module, so it is the same whether the sources run (src/util/) or their build (dist/).
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

function findRoot(from: string): string {
  for (let dir = from; ; ) {
    if (existsSync(join(dir, "package.json"))) return dir;
    const up = dirname(dir);
    if (up === dir) throw new Error(`no package.json above ${from}`);
    dir = up;
  }
}

export const PACKAGE_ROOT: string = findRoot(dirname(fileURLToPath(import.meta.url)));
