// `flashnode follow` of a `flashnode dev` sequencer (an OP-stack chain like Base): its RPC and its
// /flashblocks stream (JSON text, and brotli binary frames). Once both show the same flashblock,
// the follower's `pending` answers for eth_getStorageAt, eth_getBlockReceipts, eth_getBalance,
// eth_getTransactionCount, eth_getCode and eth_call equal the sequencer's; its sealed blocks
// equal the sequencer's; transactions sent to the follower reach the sequencer.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, test } from "node:test";
import type { RunningNode } from "../../src/node/plan.ts";
import {
  deployStorageContract,
  devSigner,
  pendingHolds,
  pollUntil,
  setCalldata,
  signAtPendingNonce,
  startTestDevNode,
  startTestFollower,
  storageContractBytecode,
} from "../utils/devChain.ts";
import { BIN, call, tempDatadir } from "../utils/fixtures.ts";
import { captureOutput } from "../utils/processes.ts";

const SET_TOPIC = `0x${"ab".repeat(32)}`;
const alice = devSigner();

let sequencer: RunningNode;
let follower: RunningNode;
let contract: string;

async function send(
  url: string,
  tx: { to?: `0x${string}`; data?: `0x${string}`; value?: bigint; gas?: bigint },
) {
  const raw = await signAtPendingNonce(sequencer.url, alice, { ...tx, gas: tx.gas ?? 200_000n });
  return (await call(url, "eth_sendRawTransaction", [raw])) as string;
}

/** Both nodes' pending blocks hold `hash` (the sequencer builds nothing else meanwhile). */
async function bothPending(hash: string): Promise<void> {
  for (const node of [sequencer, follower]) await pendingHolds(node, hash);
}

before(async () => {
  // Long blocks: the pending block stays put while the two are compared; evm_mine seals.
  sequencer = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 100 });
  contract = await deployStorageContract(sequencer.url, alice, SET_TOPIC);
  await call(sequencer.url, "evm_mine");
  follower = await startTestFollower(sequencer, "follow-dev");
  await pollUntil(
    async () => [
      await call(follower.url, "eth_blockNumber"),
      await call(sequencer.url, "eth_blockNumber"),
    ],
    ([a, b]) => a === b,
    60_000,
  );
});

after(async () => {
  await follower?.close();
  await sequencer?.close();
});

test("pending on the follower answers what pending on the sequencer answers, method by method", async () => {
  const hash = await send(follower.url, { to: contract as `0x${string}`, data: setCalldata(77n) });
  await bothPending(hash);
  const same = async (method: string, params: unknown[]) => {
    const theirs = await call(sequencer.dedicatedUrl, method, params);
    assert.deepEqual(
      await call(follower.dedicatedUrl, method, params),
      theirs,
      `${method}(${JSON.stringify(params)})`,
    );
  };
  await same("eth_getStorageAt", [contract, "0x0", "pending"]);
  await same("eth_getBlockReceipts", ["pending"]);
  await same("eth_getBalance", [alice.address, "pending"]);
  await same("eth_getTransactionCount", [alice.address, "pending"]);
  await same("eth_getCode", [contract, "pending"]);
  await same("eth_call", [{ to: contract }, "pending"]);
  assert.equal(
    BigInt(String(await call(follower.url, "eth_getStorageAt", [contract, "0x0", "pending"]))),
    77n,
  );
});

// A followed chain's EIP-1559 parameters are its own (a dev OP chain's are 2 and 8, which its
// headers do not carry): the follower takes each header's base fee as the upstream's consensus
// gave it, and checks what execution yields.
test("sealed blocks equal the sequencer's", async () => {
  // evm_mine answers "0x0" (as anvil does): the sealed block is the sequencer's head after it.
  await call(sequencer.url, "evm_mine");
  const sealed = Number(await call(sequencer.url, "eth_blockNumber"));
  assert.ok(sealed > 0);
  await pollUntil(
    async () => Number(await call(follower.url, "eth_blockNumber")),
    (n) => n >= sealed,
    30_000,
  );
  const id = `0x${sealed.toString(16)}`;
  assert.deepEqual(
    await call(follower.dedicatedUrl, "eth_getBlockByNumber", [id, true]),
    await call(sequencer.dedicatedUrl, "eth_getBlockByNumber", [id, true]),
  );
  assert.deepEqual(
    await call(follower.dedicatedUrl, "eth_getBlockReceipts", [id]),
    await call(sequencer.dedicatedUrl, "eth_getBlockReceipts", [id]),
  );
});

test("a follower of the stream's brotli binary frames shows the same pending block", async () => {
  const brotli = await startTestFollower(sequencer, "follow-dev-brotli", {
    flashblocks: `${sequencer.wsUrl}flashblocks?compression=brotli`,
  });
  try {
    const hash = await send(sequencer.url, {
      to: contract as `0x${string}`,
      data: setCalldata(99n),
    });
    await bothPending(hash);
    await pendingHolds(brotli, hash);
    assert.deepEqual(
      await call(brotli.dedicatedUrl, "eth_getBlockReceipts", ["pending"]),
      await call(sequencer.dedicatedUrl, "eth_getBlockReceipts", ["pending"]),
    );
    assert.equal(
      BigInt(String(await call(brotli.url, "eth_getStorageAt", [contract, "0x0", "pending"]))),
      99n,
    );
  } finally {
    await brotli.close();
  }
});

test("eth_sendRawTransactionSync on the follower answers once the receipt is pre-confirmed there", async () => {
  const raw = await signAtPendingNonce(sequencer.url, alice, {
    gas: 100_000n,
    to: contract as `0x${string}`,
    data: setCalldata(55n),
  });
  const receipt = (await call(follower.url, "eth_sendRawTransactionSync", [raw])) as {
    status: string;
    transactionHash: string;
  };
  assert.equal(receipt.status, "0x1");
  // Answered from the follower's own pre-confirmed block: it shows the write at pending now.
  assert.equal(
    BigInt(String(await call(follower.url, "eth_getStorageAt", [contract, "0x0", "pending"]))),
    55n,
  );
  assert.deepEqual(
    await call(follower.url, "eth_getTransactionReceipt", [receipt.transactionHash]),
    receipt,
  );
});

// The follower resets its state to the head before each block; code the followed chain deployed
// after the fork block must come back from its own database then (it once came back empty: the
// calls of later blocks ran against no code, their gas disagreed with the stream's, and the
// block's import failed to reset, for ever).
test("a contract deployed after the follower started runs in the follower's later blocks", async () => {
  // Another topic: code the upstream never had (the follower cannot find it by hash there).
  const deploy = await send(sequencer.url, {
    data: storageContractBytecode(`0x${"cd".repeat(32)}`),
    gas: 300_000n,
  });
  await bothPending(deploy);
  await call(sequencer.url, "evm_mine");
  const fresh = (
    (await call(sequencer.url, "eth_getTransactionReceipt", [deploy])) as {
      contractAddress: `0x${string}`;
    }
  ).contractAddress;
  // Two more blocks, each writing through the new contract: the follower's pending replays them
  // on a head it reset to.
  for (const value of [31n, 32n]) {
    const hash = await send(sequencer.url, { to: fresh, data: setCalldata(value) });
    await bothPending(hash);
    assert.equal(
      BigInt(String(await call(follower.url, "eth_getStorageAt", [fresh, "0x0", "pending"]))),
      value,
    );
    assert.deepEqual(
      await call(follower.dedicatedUrl, "eth_getBlockReceipts", ["pending"]),
      await call(sequencer.dedicatedUrl, "eth_getBlockReceipts", ["pending"]),
    );
    await call(sequencer.url, "evm_mine");
  }
  const head = Number(await call(sequencer.url, "eth_blockNumber"));
  await pollUntil(
    async () => Number(await call(follower.url, "eth_blockNumber")),
    (n) => n >= head,
    30_000,
  );
  assert.equal(
    await call(follower.url, "eth_getCode", [fresh, "latest"]),
    await call(sequencer.url, "eth_getCode", [fresh, "latest"]),
  );
  assert.equal(
    BigInt(String(await call(follower.url, "eth_getStorageAt", [fresh, "0x0", "latest"]))),
    32n,
  );
});

// The command as an operator runs it: `flashnode follow --rpc URL --flashblocks WS_URL` says
// what it follows in its banner and serves the followed chain's head.
test("flashnode follow from the command line: its banner and its head", async () => {
  const child = spawn(
    process.execPath,
    [
      BIN,
      "follow",
      "--rpc",
      sequencer.url,
      "--flashblocks",
      `${sequencer.wsUrl}flashblocks`,
      "--datadir",
      tempDatadir("follow-cli"),
      "--port",
      "0",
      "--rpc-workers",
      "1",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const p = captureOutput(child);
  try {
    const url = await pollUntil(
      async () =>
        /JSON-RPC \(public\):\s+(\S+)/.exec(p.all())?.[1] ??
        (child.exitCode === null ? "" : "exited"),
      (u) => u !== "",
      60_000,
    );
    assert.notEqual(url, "exited", p.all());
    assert.match(p.all(), /flashnode follow/);
    assert.match(p.all(), /Following chain 31337 from block \d+ \(upstream 127\.0\.0\.1:\d+\)/);
    const head = Number(await call(sequencer.url, "eth_blockNumber"));
    await pollUntil(
      async () => Number(await call(url, "eth_blockNumber")),
      (n) => n >= head,
      30_000,
    );
  } finally {
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await exited;
  }
});
