// The everyday client flows on a chain whose receipts arrive at pre-confirmation, before the
// block seals (docs/dev.md, "Receipts before the block"): viem's deploy → wait → call, and two
// `cast send` in a row, with the dev chain's default and with `--receipts sealed`.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { createPublicClient, createWalletClient, defineChain, http, keccak256, toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { cast, castDeploy } from "../utils/cast.ts";
import {
  setCalldata,
  signTransfer,
  startTestDevNode,
  storageContractBytecode,
  word,
} from "../utils/devChain.ts";
import { call } from "../utils/fixtures.ts";

const ZERO_HASH = `0x${"0".repeat(64)}`;
const TOPIC = keccak256(toHex("Set(uint256)"));

/** A cast failure's stderr (cast exits non-zero on an RPC error). */
async function castError(...args: string[]): Promise<string> {
  try {
    await cast(...args);
  } catch (e) {
    return String((e as { stderr?: string }).stderr ?? e);
  }
  assert.fail(`cast ${args[0]} succeeded; an error was expected`);
}

describe("receipts at pre-confirmation (the dev default)", () => {
  let node: DevNode;
  // A long block time: every step below happens before the first seal, on pre-confirmed state.
  before(async () => {
    node = await startTestDevNode({ blockTimeMs: 30_000 });
  });
  after(async () => {
    await node.close();
  });

  test("viem: deploy, wait for the receipt, call the contract, read it at pending", async () => {
    const chain = defineChain({
      id: Number(node.chainId),
      name: "flashnode",
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [node.url] } },
    });
    const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
    const wallet = createWalletClient({ chain, account, transport: http(node.url) });
    // The pattern of the README: reads at `pending`.
    const client = createPublicClient({
      chain,
      transport: http(node.url),
      pollingInterval: 50,
      experimental_blockTag: "pending",
    });

    const deployHash = await wallet.deployContract({
      abi: [],
      bytecode: storageContractBytecode(TOPIC),
    });
    const deployed = await client.waitForTransactionReceipt({ hash: deployHash });
    assert.equal(deployed.status, "success");
    assert.equal(deployed.blockHash, ZERO_HASH, "a pre-confirmed receipt has a zero block hash");
    const contract = deployed.contractAddress!;

    // viem estimates the write without a block argument: at pending, where the code already is.
    const writeHash = await wallet.sendTransaction({ to: contract, data: setCalldata(7n) });
    const written = await client.waitForTransactionReceipt({ hash: writeHash });
    assert.equal(written.status, "success", "the call ran with enough gas");
    // A bare call to a code-less address would use 21,204 gas; the storage write and log use more.
    assert.ok(written.gasUsed > 25_000n, `the contract's code ran (${written.gasUsed} gas)`);
    const { data } = await client.call({ to: contract });
    assert.equal(data, word(7n));

    // All of it happened before the block sealed: `latest` has neither the code nor the write.
    assert.equal(await call(node.url, "eth_getCode", [contract, "latest"]), "0x");
    assert.equal(await call(node.url, "eth_blockNumber"), "0x0");
  });

  test("cast: a second send with the nonce from latest is refused with the fix; at pending it goes through", async () => {
    const key = node.accounts[1]!.privateKey;
    const from = node.accounts[1]!.address;
    const rpc = ["--rpc-url", node.url];
    const to = node.accounts[2]!.address;
    const first = JSON.parse(
      await cast("send", ...rpc, "--private-key", key, "--json", to, "--value", "1"),
    ) as { status: string; blockHash: string };
    assert.equal(first.status, "0x1");
    assert.equal(first.blockHash, ZERO_HASH, "cast got the pre-confirmed receipt");

    const refused = await castError("send", ...rpc, "--private-key", key, to, "--value", "1");
    assert.match(refused, /nonce too low: next nonce 1, tx nonce 0/);
    assert.match(refused, /take the nonce at "pending"/);
    assert.ok(refused.includes(`cast nonce --block pending ${from.toLowerCase()}`), refused);

    // The documented pattern.
    const nonce = await cast("nonce", ...rpc, "--block", "pending", from);
    assert.equal(nonce, "1");
    const second = JSON.parse(
      await cast(
        "send",
        ...rpc,
        "--private-key",
        key,
        "--json",
        "--nonce",
        nonce,
        to,
        "--value",
        "1",
      ),
    ) as { status: string };
    assert.equal(second.status, "0x1");
  });
});

describe("--receipts sealed", () => {
  let node: DevNode;
  before(async () => {
    node = await startTestDevNode({
      blockTimeMs: 400,
      flashblockIntervalMs: 100,
      receipts: "sealed",
    });
  });
  after(async () => {
    await node.close();
  });

  test("cast: deploy, then two sends in a row, unmodified", async () => {
    const key = node.accounts[3]!.privateKey;
    const rpc = ["--rpc-url", node.url];
    const deployed = await castDeploy(node.url, key, storageContractBytecode(TOPIC));
    assert.equal(deployed.status, "0x1");
    assert.notEqual(deployed.blockHash, ZERO_HASH, "the receipt comes from a sealed block");
    for (const value of [11n, 12n]) {
      const r = JSON.parse(
        await cast(
          "send",
          ...rpc,
          "--private-key",
          key,
          "--json",
          deployed.contractAddress,
          setCalldata(value),
        ),
      ) as { status: string };
      assert.equal(r.status, "0x1");
      assert.equal(
        await cast("storage", ...rpc, "--block", "latest", deployed.contractAddress, "0"),
        word(value),
      );
    }
  });

  test("eth_sendRawTransactionSync answers with the sealed receipt", async () => {
    const raw = await signTransfer(node, 4, { nonce: 0 });
    const receipt = (await call(node.url, "eth_sendRawTransactionSync", [raw])) as {
      blockHash: string;
      blockNumber: string;
      transactionHash: string;
    };
    assert.notEqual(receipt.blockHash, ZERO_HASH);
    const head = BigInt((await call(node.url, "eth_blockNumber")) as string);
    assert.ok(head >= BigInt(receipt.blockNumber), "the receipt's block is sealed");
    assert.deepEqual(
      await call(node.url, "eth_getTransactionReceipt", [receipt.transactionHash]),
      receipt,
    );
  });
});
