// The execution-apis conformance chain carried in fixtures/, and helpers to import it.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { RpcError } from "../../src/util/errors.ts";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
export const BIN = join(ROOT, "bin/flashnode.js");

function findFixtures(): string {
  // Carried in the repository (CC0, see its SOURCE): a clone alone runs every tier.
  const dir = join(ROOT, "fixtures/execution-apis");
  if (!existsSync(join(dir, "chain.rlp")) || !existsSync(join(dir, "tests")))
    throw new Error(`execution-apis fixtures missing from ${dir}`);
  return dir;
}

export const FIXTURES = findFixtures();
export const GENESIS = join(FIXTURES, "genesis.json");
export const CHAIN_RLP = join(FIXTURES, "chain.rlp");
export const FORKCHOICE = join(FIXTURES, "headfcu.json");

const created: string[] = [];
process.on("exit", () => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory, removed when the test process exits. */
export function tempDatadir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `flashnode-${label}-`));
  created.push(dir);
  return dir;
}

export type CliResult = { status: number | null; stdout: string; stderr: string };

export function runCli(args: string[]): CliResult {
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 120_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** `flashnode import` arguments for the fixture chain into `datadir`; no forkchoice if null. */
export function fixtureImportArgs(
  datadir: string,
  forkchoice: string | null = FORKCHOICE,
): string[] {
  const fc = forkchoice === null ? [] : ["--forkchoice", forkchoice];
  return ["import", "--genesis", GENESIS, "--datadir", datadir, ...fc, CHAIN_RLP];
}

/**
 * The fixture chain (with forkchoice) in a fresh datadir, imported through the CLI. `npm test`
 * imports it once and names that datadir in FLASHNODE_TEST_FIXTURE_ARCHIVE: a copy of it is the
 * same archive, without an import per test file.
 */
export function importFixtureChain(label: string): string {
  const datadir = tempDatadir(label);
  const imported = process.env.FLASHNODE_TEST_FIXTURE_ARCHIVE;
  if (imported !== undefined && imported !== "" && existsSync(join(imported, "archive"))) {
    cpSync(imported, datadir, { recursive: true });
    return datadir;
  }
  const r = runCli(fixtureImportArgs(datadir));
  if (r.status !== 0) throw new Error(`import failed (${r.status}): ${r.stderr}${r.stdout}`);
  return datadir;
}

export type IoCase = { file: string; request: string; response: string; comment: string };

/** Every request/response pair of the `.io` files under tests/ (or tests-more/, for `methods`). */
export function ioCases(
  folder: "tests" | "tests-more" = "tests",
  methods?: readonly string[],
): IoCase[] {
  const dir = join(FIXTURES, folder);
  const out: IoCase[] = [];
  for (const method of readdirSync(dir).sort()) {
    if (methods !== undefined && !methods.includes(method)) continue;
    for (const name of readdirSync(join(dir, method)).sort()) {
      if (!name.endsWith(".io")) continue;
      const file = `${method}/${name}`;
      const lines = readFileSync(join(dir, method, name), "utf8").split("\n");
      const comment = lines.filter((l) => l.startsWith("//")).join(" ");
      let request: string | undefined;
      for (const line of lines) {
        if (line.startsWith(">> ")) request = line.slice(3);
        else if (line.startsWith("<< ")) {
          if (request === undefined) throw new Error(`${file}: response without request`);
          out.push({ file, request, response: line.slice(3), comment });
          request = undefined;
        }
      }
    }
  }
  return out;
}

export async function rpc(url: string, body: unknown): Promise<unknown> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return JSON.parse(await res.text());
}

/** One call expected to fail: its JSON-RPC error (undefined when it succeeded). */
export async function callError(
  url: string,
  method: string,
  params: unknown[],
): Promise<{ code: number; message: string }> {
  const r = (await rpc(url, { jsonrpc: "2.0", id: 1, method, params })) as {
    error: { code: number; message: string };
  };
  return r.error;
}

/** One call; returns `result` or throws with the JSON-RPC error. */
export async function call(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const res = (await rpc(url, { jsonrpc: "2.0", id: 1, method, params })) as {
    result?: unknown;
    error?: { code: number; message: string };
  };
  if (res.error !== undefined) throw new RpcError(res.error.code, res.error.message);
  return res.result;
}

/**
 * A JSON-RPC caller of the node at `url()` (read at each call: a test's node starts later), its
 * result typed by the caller; an error answer is thrown as `method: message`.
 */
export function rpcCaller(url: () => string) {
  return async <T = unknown>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url(), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error !== undefined) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
}
