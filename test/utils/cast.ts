// Foundry's `cast` (the npm binary), run as a user would, for the end-to-end tests.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./fixtures.ts";

const run = promisify(execFile);
export const CAST = join(ROOT, "node_modules/@foundry-rs/cast-linux-amd64/bin/cast");

/** Runs cast; resolves with its trimmed stdout, rejects (with `stderr`) on a non-zero exit. */
export async function cast(...args: string[]): Promise<string> {
  const { stdout } = await run(CAST, args, {
    env: { ...process.env, NO_COLOR: "1", FOUNDRY_DISABLE_NIGHTLY_WARNING: "1" },
  });
  return stdout.trim();
}

/** `cast send --create`: deploys `bytecode` from `key`, waits for the receipt and returns it. */
export async function castDeploy(
  rpcUrl: string,
  key: string,
  bytecode: string,
): Promise<{ status: string; blockHash: string; contractAddress: string }> {
  const out = await cast(
    "send",
    "--rpc-url",
    rpcUrl,
    "--private-key",
    key,
    "--json",
    "--create",
    bytecode,
  );
  return JSON.parse(out) as { status: string; blockHash: string; contractAddress: string };
}
