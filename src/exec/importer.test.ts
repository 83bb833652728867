import assert from "node:assert/strict";
import { test } from "node:test";
import { CHAIN_RLP, GENESIS, tempDatadir } from "../../test/utils/fixtures.ts";
import { readGenesisFile } from "../cli/inputFiles.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { importChain } from "./importer.ts";

test("an interrupted import stops after a committed block, and the next run resumes there", async () => {
  const { spec } = await readGenesisFile(GENESIS);
  const datadir = tempDatadir("import-interrupt");
  const env = openKvEnv(datadir);
  const store = createChainStore(env);
  try {
    const stop = new AbortController();
    // Ctrl-C as block 3 is committed.
    const first = await importChain({
      spec,
      store,
      chainFile: CHAIN_RLP,
      signal: stop.signal,
      onProgress: (p) => {
        if (p.number === 3) stop.abort();
      },
    });
    assert.equal(first.interrupted, true);
    assert.equal(first.head, 3);
    assert.equal(first.imported, 3);
    const again = await importChain({ spec, store, chainFile: CHAIN_RLP });
    assert.equal(again.interrupted, false);
    assert.equal(again.skipped, 3);
    assert.equal(again.head, 54);
  } finally {
    await env.close();
  }
});
