// anvil's state files and dumps, both ways, with the real anvil (the devDependency) and the
// real CLI: a state anvil dumps (--dump-state at exit, anvil_dumpState) loads into flashnode
// (--load-state, --state, anvil_loadState) and flashnode's into anvil, accounts, code, storage,
// nonces and balances alike; anvil goes on from flashnode's head.
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { gunzipSync } from "node:zlib";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import {
  pollUntil,
  setCalldata,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../utils/devChain.ts";
import { rpcCaller, tempDatadir } from "../utils/fixtures.ts";
import { ANVIL_BIN, type RpcProcess, startAnvilProcess, startCli } from "../utils/processes.ts";

const available = existsSync(ANVIL_BIN);
const skip = available ? false : "anvil binary not installed";
const TOPIC = `0x${"ab".repeat(32)}`;
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const X = "0x1000000000000000000000000000000000000001";
const Y = "0x2000000000000000000000000000000000000002";
const Z = "0x3000000000000000000000000000000000000003";
const dir = tempDatadir("state-files");

type Rpc = RpcProcess["rpc"];

/** What one chain holds of the accounts the tests write. */
async function holdings(rpc: Rpc, contract: string, tag = "latest") {
  return {
    code: await rpc<string>("eth_getCode", [contract, tag]),
    slot0: await rpc<string>("eth_getStorageAt", [contract, "0x0", tag]),
    slot7: await rpc<string>("eth_getStorageAt", [contract, "0x7", tag]),
    x: await rpc<string>("eth_getBalance", [X, tag]),
    yNonce: await rpc<string>("eth_getTransactionCount", [Y, tag]),
    ySlot: await rpc<string>("eth_getStorageAt", [Y, "0x5", tag]),
    z: await rpc<string>("eth_getBalance", [Z, tag]),
    a0Nonce: await rpc<string>("eth_getTransactionCount", [A0, tag]),
  };
}

/** anvil (automine) seeded: a contract with storage, a transfer, a nonce and a slot set. */
async function seedAnvil(rpc: Rpc): Promise<string> {
  const deploy = await rpc<string>("eth_sendTransaction", [
    { from: A0, data: storageContractBytecode(TOPIC) },
  ]);
  // anvil's automine answers the hash before its block is mined.
  const { contractAddress } = (await pollUntil(
    () => rpc<{ contractAddress: string } | null>("eth_getTransactionReceipt", [deploy]),
    (r) => r !== null,
  ))!;
  await rpc("eth_sendTransaction", [{ from: A0, to: contractAddress, data: setCalldata(0x1234n) }]);
  await rpc("eth_sendTransaction", [{ from: A0, to: X, value: "0xde0b6b3a7640000" }]);
  await rpc("anvil_setNonce", [Y, "0x9"]);
  await rpc("anvil_setStorageAt", [Y, "0x5", word(77n)]);
  await rpc("evm_mine");
  return contractAddress;
}

let anvilFile: string;
let contract: string;
let fromAnvil: Awaited<ReturnType<typeof holdings>>;

before(async () => {
  if (!available) return;
  anvilFile = join(dir, "anvil-state.json");
  const anvil = await startAnvilProcess(["--silent", "--dump-state", anvilFile]);
  try {
    contract = await seedAnvil(anvil.rpc);
    fromAnvil = await holdings(anvil.rpc, contract);
  } finally {
    await anvil.interrupt();
  }
});

test("anvil's --dump-state file loads into flashnode dev; flashnode's --state file into anvil", {
  skip,
}, async () => {
  assert.equal(fromAnvil.slot0, word(0x1234n));
  const ours = join(dir, "flashnode-state.json");
  const datadir = tempDatadir("state-files-dev");
  let head: { number: string; hash: string };
  let mine: Awaited<ReturnType<typeof holdings>>;
  // --load-state: anvil's file; --dump-state: ours, at exit.
  const node = await startCli([
    "dev",
    "--datadir",
    datadir,
    "--automine",
    "--load-state",
    anvilFile,
    "--dump-state",
    ours,
  ]);
  try {
    // Everything anvil's chain held is in `latest` once the node serves.
    assert.deepEqual(await holdings(node.rpc, contract), fromAnvil);
    // More of our own: a transfer, a slot, and the chain moves on.
    const tx = await node.rpc<string>("eth_sendTransaction", [{ from: A0, to: Z, value: "0x2" }]);
    assert.equal(
      (await node.rpc<{ status: string }>("eth_getTransactionReceipt", [tx])).status,
      "0x1",
    );
    await node.rpc("anvil_setStorageAt", [contract, "0x7", word(99n)]);
    mine = await holdings(node.rpc, contract);
    head = await node.rpc("eth_getBlockByNumber", ["latest", false]);
  } finally {
    assert.equal(await node.interrupt(), 0, node.output());
  }
  assert.match(node.output(), /state dumped/);
  assert.deepEqual(mine, {
    ...fromAnvil,
    z: "0x2",
    slot7: word(99n),
    a0Nonce: `0x${(BigInt(fromAnvil.a0Nonce) + 1n).toString(16)}`,
  });
  const file = JSON.parse(readFileSync(ours, "utf8")) as { best_block_number: number };
  assert.equal(file.best_block_number, Number(head.number));

  const anvil = await startAnvilProcess(["--silent", "--load-state", ours]);
  try {
    assert.deepEqual(await holdings(anvil.rpc, contract), mine);
    // anvil goes on from our head: same number, its next block's parent is our head's hash.
    assert.equal(await anvil.rpc("eth_blockNumber"), head.number);
    await anvil.rpc("evm_mine");
    const next = await anvil.rpc<{ number: string; parentHash: string }>("eth_getBlockByNumber", [
      "latest",
      false,
    ]);
    assert.equal(BigInt(next.number), BigInt(head.number) + 1n);
    assert.equal(next.parentHash, head.hash);
  } finally {
    await anvil.interrupt();
  }

  // --state FILE on a new chain loads what the last run dumped (--block-time 0: automine).
  const again = await startCli([
    "dev",
    "--datadir",
    datadir,
    "--fresh",
    "--block-time",
    "0",
    "--state",
    ours,
  ]);
  try {
    const h = await holdings(again.rpc, contract);
    assert.deepEqual(h, mine);
    assert.equal(await again.rpc("anvil_getAutomine"), true);
  } finally {
    await again.interrupt();
  }
});

let node: DevNode;
let anvil: RpcProcess;
const ours: Rpc = rpcCaller(() => node.dedicatedUrl);

test("anvil_dumpState / anvil_loadState: anvil's dump into flashnode, flashnode's into anvil", {
  skip,
}, async () => {
  node = await startTestDevNode({ automine: true, flashblockIntervalMs: 50 });
  anvil = await startAnvilProcess(["--silent"]);
  try {
    const theirContract = await seedAnvil(anvil.rpc);
    const dump = await anvil.rpc<string>("anvil_dumpState");
    assert.match(dump, /^0x1f8b/, "gzipped JSON, as anvil answers");
    assert.equal(await ours("anvil_loadState", [dump]), true);
    // Automine: the load is sealed when it answers.
    assert.deepEqual(await holdings(ours, theirContract), await holdings(anvil.rpc, theirContract));

    await ours("anvil_setStorageAt", [theirContract, "0x7", word(5n)]);
    await ours("eth_sendTransaction", [{ from: A0, to: Z, value: "0x3" }]);
    const ourDump = await ours<string>("anvil_dumpState", [false]);
    assert.match(ourDump, /^0x1f8b/);
    const fresh = await startAnvilProcess(["--silent"]);
    try {
      assert.equal(await fresh.rpc("anvil_loadState", [ourDump]), true);
      assert.deepEqual(
        await holdings(fresh.rpc, theirContract),
        await holdings(ours, theirContract),
      );
    } finally {
      await fresh.interrupt();
    }
    // Not anvil's format: anvil's error, with what was wrong.
    await assert.rejects(ours("anvil_loadState", ["0x1f8b0000"]), /Failed to decode state dump/);
    await assert.rejects(
      ours("anvil_loadState", ["0x7b7d"]),
      /Failed to decode state dump: accounts/,
    );
  } finally {
    await anvil.interrupt();
    await node.close();
  }
});

test("a dump holds what is pre-confirmed, not only what is sealed", async () => {
  const dev = await startTestDevNode({ blockTimeMs: 3_600_000, flashblockIntervalMs: 50 });
  const rpc = rpcCaller(() => dev.dedicatedUrl);
  try {
    await rpc("anvil_setBalance", [X, "0x1234"]);
    await rpc("anvil_setStorageAt", [Y, "0x5", word(6n)]);
    await rpc("eth_sendTransaction", [{ from: A0, to: Z, value: "0x7" }]);
    assert.equal(await rpc("eth_getBalance", [X, "latest"]), "0x0", "not sealed");
    const hex = await rpc<string>("anvil_dumpState");
    const state = JSON.parse(gunzipSync(Buffer.from(hex.slice(2), "hex")).toString()) as {
      accounts: Record<string, { balance: string; nonce: number; storage: Record<string, string> }>;
    };
    assert.equal(state.accounts[X]?.balance, "0x1234");
    assert.equal(state.accounts[Y]?.storage[word(5n)], word(6n));
    // Everything sent before the call is in it.
    assert.equal(state.accounts[Z]?.balance, "0x7");
    assert.equal(state.accounts[A0]?.nonce, 1);
  } finally {
    await dev.close();
  }
});

test("--load-state: the first block continues from the file's time, and the next from there", async () => {
  // A state whose block is a day ahead of the wall clock (a chain that moved its clock on).
  const fileTime = Math.floor(Date.now() / 1000) + 86_400;
  const file = join(tempDatadir("state-time"), "state.json");
  writeFileSync(
    file,
    JSON.stringify({
      block: { number: "0x5", timestamp: `0x${fileTime.toString(16)}` },
      accounts: { [X]: { nonce: 0, balance: "0x2a", code: "0x", storage: {} } },
    }),
  );
  const node = await startCli([
    "dev",
    "--datadir",
    tempDatadir("state-time-dev"),
    "--load-state",
    file,
  ]);
  try {
    type Block = { number: string; timestamp: string };
    // A new chain: the loaded state is sealed in block 1, before the node serves.
    assert.equal(await node.rpc("eth_getBalance", [X, "0x0"]), "0x0");
    assert.equal(await node.rpc("eth_getBalance", [X, "0x1"]), "0x2a");
    const loaded = await node.rpc<Block>("eth_getBlockByNumber", ["0x1", false]);
    const t1 = Number(loaded.timestamp);
    assert.ok(t1 >= fileTime, `the first block at ${t1}, before the file's time ${fileTime}`);
    const next = await pollUntil(
      () =>
        node.rpc<Block>("eth_getBlockByNumber", [
          `0x${(Number(loaded.number) + 1).toString(16)}`,
          false,
        ]),
      (b) => b !== null,
    );
    const t2 = Number(next.timestamp);
    // Monotonic, one block time on (2 s; a loaded machine may take longer), not a jump.
    assert.ok(t2 > t1 && t2 - t1 <= 60, `the next block at ${t2}, the first at ${t1}`);
  } finally {
    assert.equal(await node.interrupt(), 0, node.output());
  }
});
