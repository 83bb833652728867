// The files a command is pointed at (genesis, forkchoice, chain), read and checked before the
// command creates or wipes a datadir, each mistake as one line naming its flag.
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type LoadedState, parseAnvilState } from "../chain/anvilState.ts";
import { type ChainSpec, chainSpecFromGenesis, genesisBlock } from "../chain/genesis.ts";
import { ChainFile } from "../chain/rlpFile.ts";
import { UsageError } from "../util/errors.ts";
import { readJsonFile } from "./args.ts";

/** A geth genesis file, parsed and checked as a chain spec (creating nothing). */
export async function readGenesisFile(
  path: string,
): Promise<{ readonly json: Record<string, unknown>; readonly spec: ChainSpec }> {
  const json = readJsonFile("genesis", path);
  try {
    const spec = await chainSpecFromGenesis(json);
    // The genesis header is built now (its fields parsed, its fork found from its timestamp): a
    // mistake there would otherwise surface from the sequencer, after the datadir is made.
    genesisBlock(spec, new Uint8Array(32));
    return { json: json as Record<string, unknown>, spec };
  } catch (e) {
    throw new UsageError(`--genesis ${path}: ${(e as Error).message}`);
  }
}

/** anvil's state path: a directory stands for `<dir>/state.json`. */
export function stateFilePath(path: string): string {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() === true
    ? join(path, "state.json")
    : path;
}

/**
 * An anvil state file (--load-state, --state), parsed; with `optional` (--state), a file that
 * does not exist yet is no state.
 */
export function readStateFile(
  flag: string,
  path: string,
  optional = false,
): LoadedState | undefined {
  const file = stateFilePath(path);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    if (optional && (e as { code?: unknown }).code === "ENOENT") return undefined;
    throw new UsageError(`--${flag} ${path}: ${(e as Error).message}`);
  }
  try {
    return parseAnvilState(text);
  } catch (e) {
    throw new UsageError(`--${flag} ${path}: not an anvil state file: ${(e as Error).message}`);
  }
}

const HASH = /^0x[0-9a-fA-F]{64}$/;

/**
 * An engine_forkchoiceUpdated request (hive's headfcu.json) with safe and finalized hashes.
 * Whether those blocks exist is known only after the import; their form is checked now.
 */
export function checkForkchoiceFile(path: string): void {
  const json = readJsonFile("forkchoice", path) as { params?: unknown } | null;
  const state = Array.isArray(json?.params) ? (json.params[0] as Record<string, unknown>) : null;
  if (typeof state !== "object" || state === null)
    throw new UsageError(
      `--forkchoice ${path}: expected an engine_forkchoiceUpdated request ({"params":[{…BlockHash}]})`,
    );
  for (const label of ["safe", "finalized"]) {
    const hash = state[`${label}BlockHash`];
    if (typeof hash !== "string" || !HASH.test(hash))
      throw new UsageError(
        `--forkchoice ${path}: no ${label}BlockHash (a 0x-prefixed 32-byte hash)`,
      );
  }
}

/**
 * A chain file that exists and starts with an RLP block. Only the first block's header is read:
 * walking a multi-gigabyte export twice would double a long import's start.
 */
export function checkChainFile(path: string): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) throw new UsageError(`chain file ${path}: no such file`);
  if (!stat.isFile()) throw new UsageError(`chain file ${path}: not a file`);
  if (stat.size === 0) throw new UsageError(`chain file ${path} is empty`);
  const file = ChainFile.open(path);
  try {
    file.items().next();
  } catch (e) {
    throw new UsageError(`chain file ${path} ${(e as Error).message.replace(/^chain file /, "")}`);
  } finally {
    file.close();
  }
}
