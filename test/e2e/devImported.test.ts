// `flashnode dev --datadir D` on an archive made by `flashnode import`: it continues the imported
// chain from its head with the chain's own config. Its pool takes transactions signed for that
// chain (the execution-apis fixtures' own), the blocks it seals are valid blocks of that chain
// (a second archive imports them through every check `import` makes: header rules, state root,
// receipts root, requests hash), and there are no prefunded test accounts on it.
import assert from "node:assert/strict";
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { bytesToHex, hexToBytes } from "../../src/util/hex.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { fixtureTransactions } from "../utils/fixturePool.ts";
import { call, GENESIS, importFixtureChain, runCli, tempDatadir } from "../utils/fixtures.ts";

let node: DevNode;
let datadir: string;
/** The imported archive as it was before dev ran on it. */
let copy: string;

before(async () => {
  datadir = importFixtureChain("dev-imported");
  copy = tempDatadir("dev-imported-copy");
  cpSync(datadir, copy, { recursive: true });
  node = await startTestDevNode({ datadir, blockTimeMs: 600_000, flashblockIntervalMs: 50 });
});
after(async () => {
  await node?.close();
});

test("the node continues the imported chain: its chain id, its head, no test accounts", async () => {
  assert.equal(node.chainId, 3503995874084926n);
  assert.equal(node.resumedAt, 54);
  assert.deepEqual(node.accounts, []);
  assert.equal(await call(node.dedicatedUrl, "eth_blockNumber"), "0x36");
  // Until the sequencer's first flashblock, pending is latest (as designed): wait for it.
  const pending = await pollUntil(
    async () =>
      (await call(node.dedicatedUrl, "eth_getBlockByNumber", ["pending", false])) as {
        number: string;
        gasLimit: string;
      },
    (b) => b.number !== "0x36",
  );
  assert.equal(pending.number, "0x37");
  // One bounded step from the head's 200M towards --gas-limit (60M), as geth's miner.
  assert.equal(pending.gasLimit, "0xbe8c711");
});

test("the chain's own transactions run; sealed blocks import into a copy of the archive", async () => {
  const t = await fixtureTransactions();
  const url = node.dedicatedUrl;
  const hashes: string[] = [];
  for (const tx of [t.legacy, t.fromMempool, t.blob])
    hashes.push(
      (await call(url, "eth_sendRawTransaction", [bytesToHex(tx.withSidecar ?? tx.raw)])) as string,
    );
  // The gapped ones wait in the pool.
  await call(url, "eth_sendRawTransaction", [bytesToHex(t.accessList.raw)]);
  assert.equal(await call(url, "evm_mine"), "0x0");
  assert.equal(await call(url, "eth_blockNumber"), "0x37");
  for (const hash of hashes) {
    // Sealed in block 55, whatever they did (B's 21,000-gas call to a contract runs out of gas).
    const receipt = (await call(url, "eth_getTransactionReceipt", [hash])) as {
      blockNumber: string;
    };
    assert.equal(receipt.blockNumber, "0x37", hash);
  }
  assert.deepEqual(await call(url, "txpool_status"), { pending: "0x0", queued: "0x1" });
  // A second, empty block: the system calls run on top of dev's own block too.
  await call(url, "evm_mine");
  const raws: Uint8Array[] = [];
  for (const n of ["0x37", "0x38"])
    raws.push(hexToBytes((await call(url, "debug_getRawBlock", [n])) as string));
  const file = join(tempDatadir("dev-imported-rlp"), "blocks.rlp");
  writeFileSync(file, Buffer.concat(raws));
  const r = runCli(["import", "--genesis", GENESIS, "--datadir", copy, file]);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(r.stdout, /imported 2 blocks \(0 already present\), head 56/);
});

test("--genesis: the archive's own continues it, another one is refused before anything runs", async () => {
  const own = JSON.parse(readFileSync(GENESIS, "utf8")) as Record<string, unknown>;
  const again = await startTestDevNode({ datadir: copy, genesis: own, blockTimeMs: 600_000 });
  assert.equal(again.resumedAt, 56);
  await again.close();
  const other = devGenesis({
    chainId: 31337n,
    fork: "osaka",
    accounts: devAccounts(1),
    balanceWei: 1n,
    gasLimit: 60_000_000n,
    timestamp: 0n,
  });
  await assert.rejects(startTestDevNode({ datadir: copy, genesis: other }), (e: Error) => {
    assert.match(
      e.message,
      /holds a chain from another genesis \(chain id 3503995874084926, head 56\)/,
    );
    assert.equal((e as Error & { code?: string }).code, "GENESIS_MISMATCH");
    return true;
  });
});
