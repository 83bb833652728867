// `flashnode import`: executes an RLP chain file block by block into the archive. Each block is
// verified, then committed in one atomic write, so an interrupted import resumes from the last
// committed block.
import { readFileSync } from "node:fs";
import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import type { ChainSpec } from "../chain/genesis.ts";
import { blockFromRlp } from "../chain/op/blockTx.ts";
import { ChainFile, ChainFileError } from "../chain/rlpFile.ts";
import type { ChainStore } from "../store/chainStore.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToBigInt, bytesToHex, equalBytes, hexToBytes } from "../util/hex.ts";
import { BlockExecutor, type ForkBaseWrite, type ForkedExecution } from "./blockExecutor.ts";

export class ImportError extends Error {
  readonly code = "IMPORT_FAILED";
}

/** `dev --genesis G` on a datadir that already holds a chain from another genesis. */
export class GenesisMismatchError extends Error {
  readonly code = "GENESIS_MISMATCH";
}

export type ImportProgress = (p: {
  readonly number: number;
  readonly last: number;
  readonly gas: bigint;
  readonly elapsedMs: number;
}) => void;

export type ImportResult = {
  readonly imported: number;
  /** Stopped by its signal before the chain file's end. */
  readonly interrupted: boolean;
  readonly skipped: number;
  readonly head: number;
  readonly gas: bigint;
  readonly elapsedMs: number;
};

function decodeBlock(spec: ChainSpec, bytes: Uint8Array, position: number, offset: number): Block {
  try {
    return blockFromRlp(bytes, { common: spec.common, setHardfork: true });
  } catch (e) {
    throw new ImportError(
      `block #${position} of the chain file (byte ${offset}) cannot be decoded: ${(e as Error).message}`,
    );
  }
}

/** A block's number and hash from its header's RLP alone; undefined if it is malformed. */
function headerIdentity(bytes: Uint8Array): { number: number; hash: Uint8Array } | undefined {
  try {
    const header = (RLP.decode(bytes) as unknown as Uint8Array[][])[0];
    const number = header?.[8];
    if (!Array.isArray(header) || !(number instanceof Uint8Array) || number.length > 6)
      return undefined;
    return { number: Number(bytesToBigInt(number)), hash: keccak256(RLP.encode(header)) };
  } catch {
    return undefined; // decodeBlock reports it
  }
}

/** Writes the genesis block if the archive is empty; checks it matches otherwise. */
/** Where a forked chain starts: F, and (for a new archive) its header and base writes. */
export type ForkStart = {
  readonly chainId: bigint;
  readonly number: number;
  readonly hash: Uint8Array;
  readonly base?: { readonly headerRlp: Uint8Array; readonly writes: readonly ForkBaseWrite[] };
};

/**
 * A forked chain's archive, opened on its head, or begun at its base block F. An archive of
 * another chain, or of a fork at another block, is refused.
 */
export async function ensureForkBase(
  spec: ChainSpec,
  store: ChainStore,
  fork: ForkedExecution,
  start: ForkStart,
): Promise<BlockExecutor> {
  const datadir = store.env.path.replace(/\/archive$/, "");
  const head = store.headNumber();
  if (head !== undefined) {
    const stored = store.forkBase();
    if (
      stored === undefined ||
      stored.chainId !== start.chainId ||
      stored.number !== start.number ||
      !equalBytes(stored.hash, start.hash)
    )
      throw new ImportError(
        `${datadir} holds ${stored === undefined ? "a chain of its own" : `a fork of chain ${stored.chainId} at block ${stored.number}`}, not a fork of chain ${start.chainId} at block ${start.number}: use another --datadir, or --fresh to start over`,
      );
    return BlockExecutor.open(spec, store, fork);
  }
  if (start.base === undefined)
    throw new ImportError(`${datadir} holds no chain yet, and no fork block was prepared`);
  // Config and base first, the head last (writeBlock): a crash before it leaves no head, and the
  // next start begins again.
  store.setChainConfig(JSON.stringify(spec.genesisJson));
  const executor = await BlockExecutor.open(spec, store, fork);
  const { write, stateRoot } = await executor.forkBase(start.base.headerRlp, start.base.writes);
  if (!equalBytes(write.hash, start.hash))
    throw new ImportError(
      `block ${start.number}'s header does not hash to ${bytesToHex(start.hash)} under this chain's rules`,
    );
  store.setForkBase({ chainId: start.chainId, number: start.number, hash: start.hash, stateRoot });
  store.writeBlock(write);
  return executor;
}

export async function ensureGenesis(spec: ChainSpec, store: ChainStore): Promise<BlockExecutor> {
  const config = JSON.stringify(spec.genesisJson);
  const stored = store.chainConfig();
  const head = store.headNumber();
  const fork = store.forkBase();
  if (head !== undefined && fork !== undefined)
    throw new ImportError(
      `${store.env.path.replace(/\/archive$/, "")} holds a fork of chain ${fork.chainId} at block ${fork.number}: its state beyond what it wrote is the upstream's, so it runs with --fork-url`,
    );
  // Checked before the executor opens on the stored head: another chain's head under this
  // genesis's rules is not even a valid block.
  if (head !== undefined && stored !== config) {
    const chainId = (JSON.parse(stored ?? "{}") as { config?: { chainId?: unknown } }).config
      ?.chainId;
    throw new ImportError(
      `${store.env.path.replace(/\/archive$/, "")} holds a chain from a different genesis (chain id ${String(chainId)}, head ${head}): use another --datadir or remove this one`,
    );
  }
  const executor = await BlockExecutor.open(spec, store);
  if (head === undefined) {
    const { write } = await executor.genesis();
    store.writeBlock(write);
    store.setChainConfig(config);
  }
  return executor;
}

export async function importChain(opts: {
  readonly spec: ChainSpec;
  readonly store: ChainStore;
  readonly chainFile: string;
  readonly onProgress?: ImportProgress;
  /** Stops after the block being executed is committed (Ctrl-C): the result says so. */
  readonly signal?: AbortSignal;
}): Promise<ImportResult> {
  const { spec, store } = opts;
  const executor = await ensureGenesis(spec, store);
  let file: ChainFile;
  try {
    file = ChainFile.open(opts.chainFile);
  } catch (e) {
    throw new ImportError((e as Error).message);
  }
  const started = performance.now();
  let imported = 0;
  let skipped = 0;
  let gas = 0n;
  let interrupted = false;
  try {
    // A first pass over the item headers only: the last block number, for progress.
    const { count, last: lastItem } = file.count();
    const last =
      lastItem === undefined
        ? 0
        : Number(decodeBlock(spec, lastItem.bytes, count, lastItem.offset).header.number);
    let position = 0;
    for (const item of file.items()) {
      if (opts.signal?.aborted === true) {
        interrupted = true;
        break;
      }
      position++;
      // Blocks already in the archive (a resumed import) are only compared, by header hash:
      // no transaction is decoded.
      const id = headerIdentity(item.bytes);
      if (id !== undefined && id.number <= (store.headNumber() ?? -1)) {
        const stored = store.canonicalHash(id.number);
        if (stored === undefined || !equalBytes(stored, id.hash)) {
          throw new ImportError(
            `the archive holds a different block ${id.number} (${stored === undefined ? "none" : bytesToHex(stored)}) than the chain file (${bytesToHex(id.hash)})`,
          );
        }
        skipped++;
        continue;
      }
      const block = decodeBlock(spec, item.bytes, position, item.offset);
      const number = Number(block.header.number);
      const write = await executor.execute(block);
      store.writeBlock(write);
      imported++;
      gas += block.header.gasUsed;
      opts.onProgress?.({ number, last, gas, elapsedMs: performance.now() - started });
    }
  } catch (e) {
    if (e instanceof ChainFileError) throw new ImportError(e.message);
    throw e;
  } finally {
    file.close();
  }
  return {
    imported,
    skipped,
    interrupted,
    head: store.headNumber() ?? 0,
    gas,
    elapsedMs: performance.now() - started,
  };
}

/** Applies the safe/finalized hashes of an engine_forkchoiceUpdated request (hive's headfcu.json). */
export function applyForkchoiceFile(
  store: ChainStore,
  path: string,
): { safe: number; finalized: number } {
  let params: { safeBlockHash?: string; finalizedBlockHash?: string };
  try {
    const json = JSON.parse(readFileSync(path, "utf8")) as { params?: unknown[] };
    params = (json.params?.[0] ?? {}) as typeof params;
  } catch (e) {
    throw new ImportError(`cannot read forkchoice file ${path}: ${(e as Error).message}`);
  }
  const resolve = (label: string, hash: string | undefined): number => {
    if (hash === undefined) throw new ImportError(`forkchoice file has no ${label}BlockHash`);
    const number = store.blockNumber(hexToBytes(hash));
    if (number === undefined)
      throw new ImportError(`forkchoice ${label} block ${hash} is not in the archive`);
    return number;
  };
  const fc = {
    safe: resolve("safe", params.safeBlockHash),
    finalized: resolve("finalized", params.finalizedBlockHash),
  };
  store.setForkchoice(fc);
  return fc;
}
