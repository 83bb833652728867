// A node refuses bad environments at start with one clear line: a datadir held by another
// flashnode process, read-only or on a full disk, from an incompatible version; a port in use.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { createServer } from "node:net";
import { test } from "node:test";
import { createChainStore } from "../../src/store/chainStore.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import { SCHEMA_VERSION } from "../../src/store/tables.ts";
import { startTestDevNode } from "../utils/devChain.ts";
import { runCli, tempDatadir } from "../utils/fixtures.ts";

function dev(args: string[]) {
  return runCli(["dev", "--port", "0", "--log-level", "silent", ...args]);
}

test("a datadir in use by another flashnode process", async () => {
  const datadir = tempDatadir("locked");
  const node = await startTestDevNode({ datadir });
  try {
    const r = dev(["--datadir", datadir]);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `^flashnode: datadir ${datadir} is in use by another flashnode process \\(pid ${process.pid}\\)`,
        "m",
      ),
    );
    const fresh = dev(["--datadir", datadir, "--fresh"]);
    assert.match(
      fresh.stderr,
      /is in use by another flashnode process/,
      "--fresh never wipes a datadir in use",
    );
  } finally {
    await node.close();
  }
});

test("a port in use", async () => {
  const blocker = createServer();
  await new Promise<void>((ok) => blocker.listen(0, "127.0.0.1", ok));
  const port = (blocker.address() as AddressInfo).port;
  try {
    const r = runCli([
      "dev",
      "--datadir",
      tempDatadir("port"),
      "--port",
      String(port),
      "--log-level",
      "silent",
    ]);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      new RegExp(`^flashnode: port ${port} on 127.0.0.1 is already in use`, "m"),
    );
  } finally {
    blocker.close();
  }
});

test("a read-only datadir", () => {
  const r = dev(["--datadir", "/sys/flashnode-readonly-test"]);
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    /^flashnode: datadir \/sys\/flashnode-readonly-test is not writable \((EPERM|EACCES|EROFS)\)/m,
  );
});

test("a datadir from an incompatible version", async () => {
  const datadir = tempDatadir("schema");
  const env = openKvEnv(datadir);
  createChainStore(env);
  env.writeAtomically(() =>
    env
      .table("meta")
      .put(new TextEncoder().encode("schemaVersion"), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 99])),
  );
  await env.close();
  const r = dev(["--datadir", datadir]);
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `archive schema version 99; this flashnode reads version ${SCHEMA_VERSION} \\(dev: start over with --fresh`,
    ),
  );
});

test("a full disk", (t) => {
  const dir = tempDatadir("full");
  mkdirSync(dir, { recursive: true });
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", dir]).status === 0;
  if (!mounted) return t.skip("cannot mount a small tmpfs here (needs root)");
  try {
    const r = dev(["--datadir", `${dir}/node`]);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      /^flashnode: the disk of datadir .* is full \(\d+ MiB free, need at least 64 MiB\)/m,
    );
  } finally {
    spawnSync("umount", [dir]);
  }
});
