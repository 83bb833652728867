// Compiles src/ to dist/: the CLI and every worker thread's entry, each bundled with what it
// imports (dependencies too, native addons excepted), code shared between them split into common
// chunks. Run by `npm ci` (postinstall), by `npm test` and (through bin/flashnode.js) `npm start`
// when dist/ is out of date; by hand: `npm run build`.
//
// Why bundled: a start loads the EVM, the archive and the RPC layer in several threads and
// processes, and most of their load time went to resolving and reading some thousand small
// modules (and, before dist/, to transpiling TypeScript at every start). esbuild (what tsx runs
// on) strips the types; nothing is type-checked here (`npm run typecheck` does that).
//
// Worker entries are named in the sources as `new URL("./worker.ts", import.meta.url)`; the build
// makes each an entry of its own and points that URL at it. Files read at run time are found
// from the package root (src/util/packageRoot.ts), the same from src/ and from dist/.
//
// The build writes a new directory and swaps it in, so a half-written dist/ is never seen;
// dist/BUILD records the sources it was built from: bin/flashnode.js runs dist/ only when they
// are unchanged, and the TypeScript sources through tsx otherwise.
import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { fingerprint, sourceFiles } from "./sourceFingerprint.mjs";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const SRC = join(ROOT, "src");
const DIST = join(ROOT, "dist");

/** Native addons (and ws's optional ones): loaded from node_modules as they are. */
const EXTERNAL = [
  "lmdb",
  "msgpackr-extract",
  "c-kzg",
  "secp256k1",
  "keccak",
  "bufferutil",
  "utf-8-validate",
];

/** `new URL("./x.ts", import.meta.url)`: a worker thread's entry module. */
const WORKER_URL = /new URL\((["'])(\.{1,2}\/[^"'\n]+\.ts)\1,\s*import\.meta\.url\)/g;

/** Bundled code that still calls require() (CommonJS dependencies) gets one per module. */
const BANNER =
  'import { createRequire as __flashnodeCreateRequire } from "node:module";\n' +
  "const require = __flashnodeCreateRequire(import.meta.url);";

/** The output name of an entry: its path under src/ without `.ts`, `/` → `-`. */
function entryName(file) {
  return relative(SRC, file).slice(0, -3).replaceAll("/", "-");
}

/** The CLI and every worker entry the sources name, by output name. */
function entryPoints(files) {
  const entries = { flashnode: join(SRC, "cli/main.ts") };
  for (const file of files) {
    if (!file.endsWith(".ts")) continue;
    const path = join(SRC, file);
    for (const m of readFileSync(path, "utf8").matchAll(WORKER_URL)) {
      const entry = resolve(dirname(path), m[2]);
      entries[entryName(entry)] = entry;
    }
  }
  return entries;
}

/** Points each worker URL at its entry's output (dist/ is flat: every output is a sibling). */
const workerUrls = {
  name: "worker-urls",
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, (args) => {
      const code = readFileSync(args.path, "utf8");
      if (!args.path.startsWith(SRC) || !code.includes("import.meta.url")) return undefined;
      return {
        loader: "ts",
        contents: code.replace(WORKER_URL, (_all, q, rel) => {
          const name = entryName(resolve(dirname(args.path), rel));
          return `new URL(${q}./${name}.js${q}, import.meta.url)`;
        }),
      };
    });
  },
};

export async function build({ quiet = false } = {}) {
  const started = performance.now();
  const esbuild = await import("esbuild");
  const files = sourceFiles(SRC);
  const stamp = fingerprint(SRC, files);
  const out = `${DIST}.tmp-${process.pid}`;
  rmSync(out, { recursive: true, force: true });
  const entries = entryPoints(files);
  await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: entries,
    outdir: out,
    entryNames: "[name]",
    chunkNames: "chunk-[hash]",
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20.10",
    external: EXTERNAL,
    banner: { js: BANNER },
    sourcemap: "linked",
    sourcesContent: false,
    plugins: [workerUrls],
    logLevel: "warning",
  });
  writeFileSync(join(out, "BUILD"), `${stamp}\n`);
  // Swap: the old dist/ goes aside first, so dist/ is either the old build or the new one. Two
  // builds at once (two starts after an edit) both build the same sources: whichever swaps in
  // last stays, and one that finds the place taken leaves it.
  const old = `${DIST}.old-${process.pid}`;
  try {
    renameSync(DIST, old);
  } catch (e) {
    if (e.code !== "ENOENT") throw e;
  }
  try {
    renameSync(out, DIST);
  } catch (e) {
    if (e.code !== "ENOTEMPTY" && e.code !== "EEXIST") throw e;
    rmSync(out, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
  if (!quiet)
    console.log(
      `dist/: ${Object.keys(entries).join(", ")} from src/ in ${Math.round(performance.now() - started)} ms`,
    );
}

/** Whether dist/ was built from the sources as they are now. */
export function upToDate() {
  try {
    return readFileSync(join(DIST, "BUILD"), "utf8").trim() === fingerprint(SRC, sourceFiles(SRC));
  } catch {
    return false;
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes("--if-stale");
  if (!ifStale || !upToDate()) await build({ quiet: process.argv.includes("--quiet") });
}
