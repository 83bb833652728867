// `flashnode import --genesis G.json --datadir D [--forkchoice F.json] chain.rlp`
import { rmSync } from "node:fs";
import { applyForkchoiceFile, type ImportProgress, importChain } from "../exec/importer.ts";
import { createChainStore } from "../store/chainStore.ts";
import { lockDatadir, missingRoot } from "../store/datadir.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { UsageError } from "../util/errors.ts";
import { checkChainFile, checkForkchoiceFile, readGenesisFile } from "./inputFiles.ts";
import { helpFor, resolveOptions } from "./options.ts";

export const IMPORT_HELP = `flashnode import --genesis G.json --datadir D [--forkchoice headfcu.json] chain.rlp

Executes every block of an RLP chain file (geth export format) with the EVM, verifies its state
root, receipts root, gas used and logs bloom, and stores it in the archive at D. A block that
does not verify is refused with the reason and nothing of it is stored. Re-running resumes after
the last committed block.

${helpFor("import")}
`;

export type ProgressStream = { readonly isTTY?: boolean; write(text: string): unknown };

/** A redrawn bar on a terminal (at most every 100 ms), plain lines every `intervalMs` otherwise. */
export function progressPrinter(intervalMs: number, out: ProgressStream): ImportProgress {
  const tty = out.isTTY === true;
  const every = tty ? 100 : intervalMs;
  let lastLine = Number.NEGATIVE_INFINITY;
  return ({ number, last, gas, elapsedMs }) => {
    const final = number === last;
    if (!final && performance.now() - lastLine < every) return;
    lastLine = performance.now();
    const mgas = Number(gas) / 1e6 / Math.max(elapsedMs / 1000, 1e-9);
    if (tty) {
      const width = 30;
      const done = last === 0 ? width : Math.min(width, Math.round((number / last) * width));
      out.write(
        `\r[${"#".repeat(done)}${" ".repeat(width - done)}] block ${number}/${last}  ${mgas.toFixed(1)} Mgas/s${final ? "\n" : ""}`,
      );
    } else {
      out.write(`imported block ${number}/${last} (${mgas.toFixed(1)} Mgas/s)\n`);
    }
  };
}

export async function importCommand(argv: string[]): Promise<void> {
  const { values, positionals } = resolveOptions("import", argv);
  const genesis = values.genesis;
  const datadir = values.datadir;
  const chainFile = positionals[0];
  if (genesis === undefined || datadir === undefined || chainFile === undefined) {
    const missing = [
      genesis === undefined ? "--genesis" : undefined,
      datadir === undefined ? "--datadir" : undefined,
      chainFile === undefined ? "the chain file" : undefined,
    ].filter((m) => m !== undefined);
    throw new UsageError(
      `missing ${missing.join(", ")}: flashnode import --genesis G.json --datadir D [--forkchoice F.json] chain.rlp`,
    );
  }
  // Every input is checked before the datadir is created.
  const { spec } = await readGenesisFile(genesis);
  const forkchoice = values.forkchoice;
  if (forkchoice !== undefined) checkForkchoiceFile(forkchoice);
  checkChainFile(chainFile);
  const created = missingRoot(datadir);
  const lock = lockDatadir(datadir);
  const env = openKvEnv(datadir, { noSync: values["no-sync"] });
  const store = createChainStore(env);
  let keep = true;
  // Ctrl-C stops after the block being executed is committed: the next run resumes after it.
  const stop = new AbortController();
  const interrupt = () => stop.abort();
  process.once("SIGINT", interrupt);
  process.once("SIGTERM", interrupt);
  try {
    const result = await importChain({
      spec,
      store,
      chainFile,
      onProgress: progressPrinter(values["progress-interval"], process.stderr),
      signal: stop.signal,
    });
    if (result.interrupted) {
      process.stderr.write(
        `\nflashnode: import interrupted at block ${result.head} (committed; ${result.imported} imported this run): run the same command again to resume\n`,
      );
      process.exitCode = 130;
      return;
    }
    const seconds = result.elapsedMs / 1000;
    const mgas = Number(result.gas) / 1e6 / Math.max(seconds, 1e-9);
    console.log(
      `imported ${result.imported} blocks (${result.skipped} already present), head ${result.head}, ` +
        `${(Number(result.gas) / 1e6).toFixed(1)} Mgas in ${seconds.toFixed(2)} s = ${mgas.toFixed(1)} Mgas/s`,
    );
    if (forkchoice !== undefined) {
      const fc = applyForkchoiceFile(store, forkchoice);
      console.log(`forkchoice: safe ${fc.safe}, finalized ${fc.finalized}`);
    }
  } catch (e) {
    // A datadir this run created that holds no block past genesis (the first block refused) is
    // not worth resuming: it goes, as if the command had never run.
    keep = created === undefined || (store.headNumber() ?? 0) > 0;
    throw e;
  } finally {
    process.off("SIGINT", interrupt);
    process.off("SIGTERM", interrupt);
    await env.close();
    lock.release();
    if (!keep && created !== undefined) rmSync(created, { recursive: true, force: true });
  }
}
