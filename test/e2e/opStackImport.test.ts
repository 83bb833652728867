// An OP-stack chain built by the dev sequencer — L1-info deposits, user deposits (a mint and
// transfer, a contract creation, one that fails), transactions paying the L1 fee, a contract
// and its events — exported block by block as RLP and imported into an empty archive by
// `flashnode import`, which executes every deposit and L1 fee and verifies every root; the
// imported archive then serves every block and receipt exactly as the sequencer's did.
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createWalletClient, http, keccak256, parseEther, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { DEFAULT_DEV_L1, devL1Values } from "../../src/chain/op/l1Info.ts";
import { opPredeploys } from "../../src/chain/op/predeploys.ts";
import type { RunningNode as DevNode, RunningNode as RunningServer } from "../../src/node/plan.ts";
import { hexToBytes } from "../../src/util/hex.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
} from "../utils/devChain.ts";
import { call, runCli, tempDatadir } from "../utils/fixtures.ts";
import { startArchiveServer } from "../utils/nodes.ts";
import { silentLogger, testFrontendOptions } from "../utils/options.ts";

let node: DevNode;
let served: RunningServer | undefined;
let genesisFile: string;

before(async () => {
  const accounts = devAccounts(3);
  const timestamp = BigInt(Math.floor(Date.now() / 1000));
  const genesis = devGenesis({
    chainId: 31337n,
    fork: "osaka",
    accounts,
    balanceWei: 10n ** 22n,
    gasLimit: 60_000_000n,
    timestamp,
    op: await opPredeploys(
      devL1Values(DEFAULT_DEV_L1, timestamp),
      hexToBytes(accounts[0]!.address),
    ),
  });
  genesisFile = join(tempDatadir("op-genesis"), "genesis.json");
  writeFileSync(genesisFile, JSON.stringify(genesis));
  // Blocks only on evm_mine: each block's content is decided by the test.
  node = await startTestDevNode({ genesis, blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
});
after(async () => {
  await served?.close();
  await node?.close();
});

test("an exported OP-stack chain imports with every root, block and receipt matching", async () => {
  const url = node.dedicatedUrl;
  const rpc = (method: string, params: unknown[] = []) => call(url, method, params);
  const account = privateKeyToAccount(node.accounts[1]!.privateKey as `0x${string}`);
  const wallet = createWalletClient({ account, transport: http(url) });
  const chain = {
    id: 31337,
    name: "dev",
    nativeCurrency: { name: "E", symbol: "E", decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  } as const;
  await rpc("evm_mine");
  // Block 2: a transfer and a contract deployment, both paying the L1 fee.
  const topic = keccak256(toHex("Set(uint256)"));
  await wallet.sendTransaction({
    chain,
    to: node.accounts[2]!.address as `0x${string}`,
    value: parseEther("1"),
    nonce: 0,
  });
  const deploy = await wallet.sendTransaction({
    chain,
    data: storageContractBytecode(topic),
    nonce: 1,
  });
  await pollUntil(
    () => rpc("eth_getTransactionReceipt", [deploy]),
    (r) => r !== null,
  );
  await rpc("evm_mine");
  const contract = (
    (await rpc("eth_getTransactionReceipt", [deploy])) as { contractAddress: string }
  ).contractAddress;
  // Block 3: user deposits — a mint with a call into the contract (an event), a contract
  // creation, one that cannot pay its value — then a transaction.
  await rpc("flashnode_depositTransaction", [
    {
      from: "0x00000000000000000000000000000000000d3e10",
      to: contract,
      mint: "0x2386f26fc10000",
      data: setCalldata(7n),
      gas: "0x30d40",
    },
  ]);
  await rpc("flashnode_depositTransaction", [
    {
      from: "0x00000000000000000000000000000000000d3e11",
      data: storageContractBytecode(topic),
      gas: "0x493e0",
    },
  ]);
  await rpc("flashnode_depositTransaction", [
    { from: "0x00000000000000000000000000000000000d3e12", to: contract, mint: "0x1", value: "0x2" },
  ]);
  await rpc("evm_mine"); // block 3; the deposits open block 4
  const set = await wallet.sendTransaction({
    chain,
    to: contract as `0x${string}`,
    data: setCalldata(9n),
    nonce: 2,
  });
  await pollUntil(
    () => rpc("eth_getTransactionReceipt", [set]),
    (r) => r !== null,
  );
  await rpc("evm_mine");
  const head = Number(BigInt((await rpc("eth_blockNumber")) as string));
  assert.ok(head >= 4);
  const deposits = (
    (await rpc("eth_getBlockReceipts", [toHex(head)])) as { type: string; status: string }[]
  ).filter((r) => r.type === "0x7e");
  assert.deepEqual(
    deposits.map((r) => r.status),
    ["0x1", "0x1", "0x1", "0x0"],
    "L1 info, 2 deposits, 1 failed",
  );

  const raws: Uint8Array[] = [];
  for (let n = 1; n <= head; n++)
    raws.push(hexToBytes((await rpc("debug_getRawBlock", [toHex(n)])) as string));
  const file = join(tempDatadir("op-rlp"), "chain.rlp");
  writeFileSync(file, Buffer.concat(raws));
  const datadir = tempDatadir("op-imported");
  const r = runCli(["import", "--genesis", genesisFile, "--datadir", datadir, file]);
  assert.equal(r.status, 0, r.stderr + r.stdout);
  assert.match(
    r.stdout,
    new RegExp(`imported ${head} blocks \\(0 already present\\), head ${head}`),
  );

  served = await startArchiveServer({
    datadir,
    frontend: testFrontendOptions(),
    logger: silentLogger,
  });
  const imported = served.dedicatedUrl;
  for (let n = 0; n <= head; n++) {
    const id = toHex(n);
    assert.deepEqual(
      await call(imported, "eth_getBlockByNumber", [id, true]),
      await rpc("eth_getBlockByNumber", [id, true]),
      `block ${n}`,
    );
    assert.deepEqual(
      await call(served.dedicatedUrl, "eth_getBlockReceipts", [id]),
      await rpc("eth_getBlockReceipts", [id]),
      `receipts of block ${n}`,
    );
    assert.deepEqual(
      await call(imported, "debug_getRawReceipts", [id]),
      await rpc("debug_getRawReceipts", [id]),
      `raw receipts of block ${n}`,
    );
  }
  // The contract's storage as the deposits and the transaction left it, at every block.
  for (let n = 2; n <= head; n++)
    assert.equal(
      await call(imported, "eth_getStorageAt", [contract, "0x0", toHex(n)]),
      await rpc("eth_getStorageAt", [contract, "0x0", toHex(n)]),
    );
});
