#!/usr/bin/env node
// `npm test`: every *.test.ts of src/ and test/, each file in its own Node process (node:test),
// several files at once. Test files use their own ports (port 0 or freePort) and datadirs
// (tempDatadir), so they can run side by side; the few that measure the machine or need it
// quiet are listed in SOLO and run alone, after the others.
//
// One line per file as it ends (pass/fail, tests, seconds); a failed file's whole output is
// printed under its line. Exit code 1 if any file failed or hung past FILE_TIMEOUT_MS.
//
//   npm test                         every file
//   npm test -- src/rpc test/e2e/x   only files under these paths
//   FLASHNODE_TEST_JOBS=1 npm test   one file at a time
import { spawn } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
/** A file that runs longer than this is killed and counted as failed. */
const FILE_TIMEOUT_MS = 15 * 60_000;
/** Files that need the machine to themselves: run one at a time, after the parallel ones. */
const SOLO = new Set([]);

function testFiles(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    if (name === "node_modules") continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...testFiles(path));
    else if (name.endsWith(".test.ts")) out.push(relative(ROOT, path));
  }
  return out;
}

const filters = process.argv.slice(2).map((a) => relative(ROOT, join(process.cwd(), a)));
const all = [...testFiles(join(ROOT, "src")), ...testFiles(join(ROOT, "test"))]
  .filter((f) => filters.length === 0 || filters.some((p) => f === p || f.startsWith(`${p}/`)))
  .sort();
if (all.length === 0) {
  console.error(`no test files under ${filters.join(", ")}`);
  process.exit(1);
}
// End-to-end files take longest: start them first so the short unit files fill the gaps.
const weight = (f) => (f.startsWith("test/e2e/") ? 0 : f.startsWith("test/") ? 1 : 2);
const parallel = all.filter((f) => !SOLO.has(f)).sort((a, b) => weight(a) - weight(b));
const solo = all.filter((f) => SOLO.has(f));

const jobs = Math.max(
  1,
  Number(process.env.FLASHNODE_TEST_JOBS ?? Math.min(4, availableParallelism() + 1)),
);

const started = Date.now();
let done = 0;
const failed = [];
const totals = { tests: 0, pass: 0, fail: 0 };
const width = String(all.length).length;

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--test", "--test-reporter=tap", file],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env: process.env },
    );
    let output = "";
    child.stdout.on("data", (c) => {
      output += c;
    });
    child.stderr.on("data", (c) => {
      output += c;
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, FILE_TIMEOUT_MS);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      const count = (key) => Number(new RegExp(`^# ${key} (\\d+)$`, "m").exec(output)?.[1] ?? 0);
      const tests = count("tests");
      const fail = count("fail") + count("cancelled");
      totals.tests += tests;
      totals.pass += count("pass");
      totals.fail += fail;
      const ok = code === 0 && fail === 0 && !timedOut;
      done++;
      const secs = ((Date.now() - t0) / 1000).toFixed(1).padStart(6);
      const n = String(done).padStart(width);
      const why = timedOut ? " (timed out)" : signal ? ` (${signal})` : "";
      console.log(
        `[${n}/${all.length}] ${ok ? "ok  " : "FAIL"} ${secs}s  ${file}  ${tests} tests${why}`,
      );
      if (!ok) {
        failed.push(file);
        console.log(output.replace(/^/gm, "    | "));
      }
      resolve();
    });
  });
}

async function pool(files, width) {
  const queue = [...files];
  const worker = async () => {
    for (let f = queue.shift(); f !== undefined; f = queue.shift()) await runFile(f);
  };
  await Promise.all(Array.from({ length: Math.min(width, files.length) }, worker));
}

console.log(
  `${all.length} test files, ${jobs} at a time${solo.length ? ` (${solo.length} alone, last)` : ""}`,
);
await pool(parallel, jobs);
await pool(solo, 1);
const wall = ((Date.now() - started) / 1000).toFixed(0);
console.log(
  `\n${totals.tests} tests in ${all.length} files: ${totals.pass} passed, ${totals.fail} failed; ${wall} s`,
);
if (failed.length > 0) {
  console.log(`failed files:\n${failed.map((f) => `  ${f}`).join("\n")}`);
  process.exit(1);
}
