#!/usr/bin/env node
// `npm test`: every *.test.ts of src/ and test/, each file in its own Node process (node:test),
// several files at once. Test files use their own ports (port 0, or a port the server picked)
// and datadirs (tempDatadir), so they can run side by side; a file listed in SOLO would run
// alone, after the others.
//
// One line per file as it ends (pass/fail, tests, seconds); a failed file's whole output is
// printed under its line. A file fails if a test fails, if it exits non-zero or by a signal, if
// it reports no test, or if it runs past FILE_TIMEOUT_MS (then it is killed). Exit code 1 if any
// file failed.
//
//   npm test                         every file
//   npm test -- src/rpc test/e2e/x   only files under these paths
//   FLASHNODE_TEST_JOBS=1 npm test   one file at a time
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
/** A file that runs longer than this is killed and counted as failed (the slowest take ~3 min). */
const FILE_TIMEOUT_MS = 10 * 60_000;
/** Files that need the machine to themselves: run one at a time, after the parallel ones. */
const SOLO = new Set([]);
/**
 * The slowest files (seconds with 4 jobs on the 2-core machine, shared), started first so the
 * short ones fill the gaps at the end. Approximate: only the order depends on them. Other
 * end-to-end files come next, then the rest of test/, then the unit files.
 */
const HEAVY = {
  "test/e2e/replicaFaults.test.ts": 190,
  "src/exec/interpreterLoop.test.ts": 115,
  "test/e2e/cliErrors.test.ts": 180,
  "test/e2e/crash.test.ts": 115,
  "test/e2e/importCrash.test.ts": 110,
  "test/e2e/roles.test.ts": 105,
  "test/e2e/fleetNetns.test.ts": 100,
  "test/e2e/importReject.test.ts": 95,
  "test/e2e/forkCli.test.ts": 90,
  "test/e2e/devConsistency.test.ts": 80,
  "test/e2e/workerDeath.test.ts": 70,
  "test/e2e/replicaRevert.test.ts": 65,
  "test/e2e/replicaSequencerCrash.test.ts": 60,
  "test/e2e/replicaWorkers.test.ts": 55,
  "src/exec/op/l1Cost.test.ts": 50,
  "src/edge/edgeServer.test.ts": 45,
  "src/rpc/debug/getRawReceipts.test.ts": 30,
  "src/rpc/eth/getLogs.test.ts": 30,
};

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
// Longest first: the heavy files by name, then end-to-end files, then test/, then unit files.
const weight = (f) => HEAVY[f] ?? (f.startsWith("test/e2e/") ? 20 : f.startsWith("test/") ? 10 : 0);
const parallel = all.filter((f) => !SOLO.has(f)).sort((a, b) => weight(b) - weight(a));
const solo = all.filter((f) => SOLO.has(f));

// Most end-to-end files wait on a chain's clock (blocks, flashblocks) more than they compute:
// twice the cores, at most 4. On the 2-core machine, 4 ran the suite in 736 s where 3 took 825 s
// (both beside other work, load ~20).
const jobs = Math.max(
  1,
  Number(process.env.FLASHNODE_TEST_JOBS) || Math.min(4, availableParallelism() * 2),
);

const started = Date.now();
/** The files' environment. */
const env = { ...process.env };
/** The fixture chain imported once for the run (see importFixtureArchive). */
let fixtureArchive;
let done = 0;
const failed = [];
const times = [];
const totals = { tests: 0, pass: 0, fail: 0 };
const width = String(all.length).length;
/** Process groups of the files running now, to end them on Ctrl-C. */
const running = new Set();

/** The processes of group `pgid` still alive (zombies aside): "pid command" each. */
function groupMembers(pgid) {
  const out = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command (which may hold spaces): state, ppid, pgrp, …
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(pgrp) !== pgid || state === "Z") continue;
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0").join(" ").trim();
      out.push(`${entry} ${cmd.slice(0, 120)}`);
    } catch {
      // exited meanwhile
    }
  }
  return out;
}

/** Kills a file's whole process group (what it started, too). */
function killGroup(pid) {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // none left
  }
}

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    // Its own process group (detached), so whatever the file starts and leaves behind (nodes,
    // nats-server, anvil, a browser) is ended with it. --test-force-exit: a handle left open
    // after the last test does not keep the file running.
    const child = spawn(
      process.execPath,
      ["--import", "tsx", "--test", "--test-force-exit", "--test-reporter=tap", file],
      { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"], env, detached: true },
    );
    running.add(child.pid);
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
      killGroup(child.pid);
    }, FILE_TIMEOUT_MS);
    let leftovers = [];
    let spawnError;
    child.on("error", (e) => {
      spawnError = e;
    });
    // A process the file left running can hold its pipes open: end the group at the exit, so
    // that 'close' comes.
    child.on("exit", () => {
      leftovers = groupMembers(child.pid);
      killGroup(child.pid);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      running.delete(child.pid);
      const count = (key) => Number(new RegExp(`^# ${key} (\\d+)$`, "m").exec(output)?.[1] ?? 0);
      const tests = count("tests");
      const fail = count("fail") + count("cancelled");
      totals.tests += tests;
      totals.pass += count("pass");
      totals.fail += fail;
      const ok = code === 0 && fail === 0 && tests > 0 && !timedOut && spawnError === undefined;
      done++;
      const secs = (Date.now() - t0) / 1000;
      times.push([secs, file]);
      const n = String(done).padStart(width);
      const why = [
        timedOut ? `killed after ${FILE_TIMEOUT_MS / 60_000} min` : "",
        signal && !timedOut ? `ended by ${signal}` : "",
        code !== 0 && code !== null && fail === 0 ? `exit code ${code}` : "",
        tests === 0 && !timedOut ? "no test ran" : "",
        spawnError ? String(spawnError) : "",
        leftovers.length > 0 ? `left running, killed: ${leftovers.join("; ")}` : "",
      ].filter((w) => w !== "");
      console.log(
        `[${n}/${all.length}] ${ok ? "ok  " : "FAIL"} ${secs.toFixed(1).padStart(6)}s  ${file}  ${tests} tests${why.length ? ` (${why.join("; ")})` : ""}`,
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

// The files run in process groups of their own, which Ctrl-C does not reach: end them here.
for (const sig of ["SIGINT", "SIGTERM"]) {
  process.on(sig, () => {
    for (const pid of running) killGroup(pid);
    if (fixtureArchive !== undefined) rmSync(fixtureArchive, { recursive: true, force: true });
    process.exit(130);
  });
}

/**
 * Imports the fixture chain once for the whole run (test/utils/fixtures.ts copies it for each
 * file that asks for it); undefined if the import failed (each file then imports its own).
 */
async function importFixtureArchive() {
  const dir = mkdtempSync(join(tmpdir(), "flashnode-test-fixture-"));
  const fixtures = join(ROOT, "fixtures/execution-apis");
  // The arguments of fixtureImportArgs (test/utils/fixtures.ts).
  const args = [
    ...["import", "--genesis", join(fixtures, "genesis.json"), "--datadir", dir],
    ...["--forkchoice", join(fixtures, "headfcu.json"), join(fixtures, "chain.rlp")],
  ];
  const child = spawn(process.execPath, [join(ROOT, "bin/flashnode.js"), ...args], {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (c) => {
    err += c;
  });
  const code = await new Promise((resolve) => child.on("close", resolve));
  if (code === 0) return dir;
  console.log(`importing the fixture chain failed (${code}); each file imports its own:\n${err}`);
  rmSync(dir, { recursive: true, force: true });
  return undefined;
}

console.log(
  `${all.length} test files, ${jobs} at a time${solo.length ? ` (${solo.length} alone, last)` : ""}`,
);
// Worth it for a run of many files (some 30 of all ask for it); a few import their own.
fixtureArchive = all.length >= 10 ? await importFixtureArchive() : undefined;
if (fixtureArchive !== undefined) env.FLASHNODE_TEST_FIXTURE_ARCHIVE = fixtureArchive;
await pool(parallel, jobs);
await pool(solo, 1);
if (fixtureArchive !== undefined) rmSync(fixtureArchive, { recursive: true, force: true });
const wall = ((Date.now() - started) / 1000).toFixed(0);
const slowest = times
  .sort((a, b) => b[0] - a[0])
  .slice(0, 5)
  .map(([s, f]) => `${f} ${s.toFixed(0)} s`);
console.log(
  `\n${totals.tests} tests in ${all.length} files: ${totals.pass} passed, ${totals.fail} failed; ${wall} s with ${jobs} jobs`,
);
if (all.length > 5) console.log(`slowest: ${slowest.join(", ")}`);
if (failed.length > 0) {
  console.log(`failed files:\n${failed.map((f) => `  ${f}`).join("\n")}`);
  process.exit(1);
}
