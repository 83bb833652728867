// A block that does not verify is refused with an error naming the block and the mismatch, and
// nothing of it is stored; the archive stays usable and the real chain imports afterwards.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createBlock, createBlockFromRLP } from "@ethereumjs/block";
import { chainSpecFromFile } from "../../src/chain/genesis.ts";
import { ChainFile } from "../../src/chain/rlpFile.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import { CHAIN_RLP, GENESIS, runCli, tempDatadir } from "../utils/fixtures.ts";

async function chainWithBadBlock(
  bad: number,
  corrupt: (header: Record<string, unknown>) => void,
): Promise<{ file: string; badHash: string }> {
  const spec = await chainSpecFromFile(GENESIS);
  const file = ChainFile.open(CHAIN_RLP);
  const raws = [...file.items()].slice(0, bad).map((item) => item.bytes);
  file.close();
  const original = createBlockFromRLP(raws[bad - 1]!, {
    common: spec.common,
    setHardfork: true,
  });
  const json = original.toJSON();
  const header = { ...json.header } as Record<string, unknown>;
  corrupt(header);
  const forged = createBlock({ ...json, header } as never, {
    common: original.common,
    skipConsensusFormatValidation: true,
  });
  const parts = [...raws.slice(0, bad - 1), forged.serialize()];
  const out = join(tempDatadir("badchain"), "chain.rlp");
  writeFileSync(out, Buffer.concat(parts));
  return { file: out, badHash: `0x${Buffer.from(forged.hash()).toString("hex")}` };
}

for (const variant of [
  {
    name: "state root",
    bad: 6,
    corrupt: (h: Record<string, unknown>) => (h.stateRoot = `0x${"11".repeat(32)}`),
  },
  {
    name: "receipts root",
    bad: 9,
    corrupt: (h: Record<string, unknown>) => (h.receiptTrie = `0x${"22".repeat(32)}`),
  },
  { name: "gas used", bad: 4, corrupt: (h: Record<string, unknown>) => (h.gasUsed = "0x5209") },
  {
    name: "logs bloom",
    bad: 7,
    corrupt: (h: Record<string, unknown>) => (h.logsBloom = `0x${"ff".repeat(256)}`),
  },
]) {
  test(`a block with a wrong ${variant.name} is refused and nothing of it is stored`, async () => {
    const { file, badHash } = await chainWithBadBlock(variant.bad, variant.corrupt);
    const datadir = tempDatadir("reject");
    const r = runCli(["import", "--genesis", GENESIS, "--datadir", datadir, file]);
    assert.equal(r.status, 1);
    assert.match(
      r.stderr,
      new RegExp(
        `block ${variant.bad} \\(${badHash}\\) rejected: ${variant.name} mismatch: header has (0x[0-9a-f]+|\\d+), execution gives (0x[0-9a-f]+|\\d+)`,
      ),
    );
    const env = openKvEnv(datadir, { readOnly: true });
    const store = createChainStore(env);
    assert.equal(store.headNumber(), variant.bad - 1);
    assert.equal(store.canonicalHash(variant.bad), undefined);
    assert.equal(store.blockNumber(Buffer.from(badHash.slice(2), "hex")), undefined);
    await env.close();
    const resumed = runCli(["import", "--genesis", GENESIS, "--datadir", datadir, CHAIN_RLP]);
    assert.equal(resumed.status, 0, resumed.stderr);
    assert.match(resumed.stdout, /head 54/);
  });
}

test("a chain file that disagrees with the archive below its head is refused", async () => {
  const datadir = tempDatadir("diverge");
  const full = runCli(["import", "--genesis", GENESIS, "--datadir", datadir, CHAIN_RLP]);
  assert.equal(full.status, 0, full.stderr);
  // Blocks 1..3 as stored, then a different block 4: compared by header hash, never executed.
  const { file, badHash } = await chainWithBadBlock(4, (h) => (h.extraData = "0x1234"));
  const r = runCli(["import", "--genesis", GENESIS, "--datadir", datadir, file]);
  assert.equal(r.status, 1);
  assert.match(
    r.stderr,
    new RegExp(
      `the archive holds a different block 4 \\(0x[0-9a-f]{64}\\) than the chain file \\(${badHash}\\)`,
    ),
  );
  const again = runCli(["import", "--genesis", GENESIS, "--datadir", datadir, CHAIN_RLP]);
  assert.equal(again.status, 0, again.stderr);
  assert.match(again.stdout, /head 54/);
});
