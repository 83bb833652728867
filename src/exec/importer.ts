// `flashnode import`: executes an RLP chain file block by block into the archive. Each block is
// verified, then committed in one atomic write, so an interrupted import resumes from the last
// committed block.
import { readFileSync } from "node:fs";
import type { Block } from "@ethereumjs/block";
import { RLP } from "@ethereumjs/rlp";
import type { ChainSpec } from "../chain/genesis.ts";
import { blockFromRlp } from "../chain/op/blockTx.ts";
import { ChainFile, ChainFileError } from "../chain/rlpFile.ts";
import type { ChainStore } from "../store/archive.ts";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToBigInt, bytesToHex, equalBytes, hexToBytes } from "../util/hex.ts";
import { ensureGenesis } from "./chainStart.ts";

export class ImportError extends FlashnodeError {
  readonly code = "IMPORT_FAILED";
}

/** `dev --genesis G` on a datadir that already holds a chain from another genesis. */
export class GenesisMismatchError extends FlashnodeError {
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
