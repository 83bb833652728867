// SIGKILL the importer mid-chain, several times at different points: after each kill the
// archive opens, every block up to its head reads back exactly as in an uninterrupted import,
// and re-running the import finishes the chain with byte-identical tables.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { test } from "node:test";
import { createChainStore } from "../../src/store/chainStore.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import { TABLES, type TableName } from "../../src/store/tables.ts";
import { bytesToHex } from "../../src/util/hex.ts";
import {
  BIN,
  CHAIN_RLP,
  fixtureImportArgs,
  GENESIS,
  importFixtureChain,
  runCli,
  tempDatadir,
} from "../utils/fixtures.ts";

type Snapshot = Map<TableName, Map<string, string>>;

async function snapshot(datadir: string): Promise<Snapshot> {
  const env = openKvEnv(datadir, { readOnly: true });
  const out: Snapshot = new Map();
  for (const name of Object.keys(TABLES) as TableName[]) {
    const rows = new Map<string, string>();
    for (const { key, value } of env
      .table(name)
      .range(new Uint8Array(0), new Uint8Array(80).fill(255))) {
      rows.set(bytesToHex(key), bytesToHex(value));
    }
    out.set(name, rows);
  }
  await env.close();
  return out;
}

/** Starts an import and SIGKILLs it once it reports having imported block `target`. */
function importAndKill(datadir: string, target: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        "import",
        "--genesis",
        GENESIS,
        "--datadir",
        datadir,
        "--progress-interval",
        "0",
        CHAIN_RLP,
      ],
      { stdio: ["ignore", "ignore", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      const m = [...stderr.matchAll(/imported block (\d+)\//g)].at(-1);
      if (m !== undefined && Number(m[1]) >= target) child.kill("SIGKILL");
    });
    child.on("exit", (code, signal) => {
      if (signal === "SIGKILL") resolve();
      else
        reject(new Error(`import ended (${code}) before block ${target} was reached: ${stderr}`));
    });
  });
}

test("import survives SIGKILL at several points and resumes to identical results", async () => {
  const reference = await snapshot(importFixtureChain("crash-ref"));
  const refHead = reference.get("canonical")!.size - 1;
  assert.equal(refHead, 54);
  const targets = [3, 17, 31, 46];
  for (const target of targets) {
    const datadir = tempDatadir(`crash-${target}`);
    await importAndKill(datadir, target);

    // The archive opens and everything up to its head is exactly the reference.
    const env = openKvEnv(datadir, { readOnly: true });
    const store = createChainStore(env);
    const head = store.headNumber();
    assert.ok(
      head !== undefined && head >= target && head <= refHead,
      `head ${head} after kill at ${target}`,
    );
    for (let n = 0; n <= head; n++) {
      const hash = store.canonicalHash(n);
      assert.ok(hash !== undefined, `canonical hash of ${n}`);
      const key = bytesToHex(hash);
      assert.equal(
        key,
        reference.get("canonical")!.get(bytesToHex(new Uint8Array([0, 0, 0, 0, 0, 0, 0, n]))),
      );
      const blockKey = `0x${n.toString(16).padStart(16, "0")}${key.slice(2)}`;
      for (const table of ["headers", "bodies", "receipts"] as const) {
        const stored = env.table(table).get(Buffer.from(blockKey.slice(2), "hex"));
        assert.equal(
          stored && bytesToHex(stored),
          reference.get(table)!.get(blockKey),
          `${table} of block ${n}`,
        );
      }
    }
    assert.equal(store.canonicalHash(head + 1), undefined, "nothing past the head");
    await env.close();

    // Resuming finishes the chain with the same bytes in every table.
    const resumed = runCli(fixtureImportArgs(datadir));
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(
      resumed.stdout,
      new RegExp(`imported ${refHead - head} blocks \\(${head} already present\\)`),
    );
    const after = await snapshot(datadir);
    for (const [table, rows] of reference) {
      assert.deepEqual(after.get(table), rows, `table ${table} after resuming from ${head}`);
    }
  }
});
