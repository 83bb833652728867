// Transaction intake of `flashnode dev`: geth's refusals, nonce gaps queued, sync sends,
// and all accepted transaction types.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import ckzg from "c-kzg";
import {
  createWalletClient,
  defineChain,
  http,
  type PrivateKeyAccount,
  parseGwei,
  toBlobs,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil, signTransfer } from "../utils/devChain.ts";
import { call as fixtureCall, rpc } from "../utils/fixtures.ts";
import { testFrontendOptions } from "../utils/options.ts";

let node: DevNode;
let kzgLoaded = false;

/** viem's KZG interface on c-kzg, whose trusted setup loads once per process. */
function kzg() {
  if (!kzgLoaded) ckzg.loadTrustedSetup(0);
  kzgLoaded = true;
  return {
    blobToKzgCommitment: ckzg.blobToKzgCommitment,
    computeBlobKzgProof: ckzg.computeBlobKzgProof,
  };
}
let alice: PrivateKeyAccount;
let bob: PrivateKeyAccount;
const chainOf = (n: DevNode) =>
  defineChain({
    id: Number(n.chainId),
    name: "flashnode",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [n.url] } },
  });

async function call(
  method: string,
  params: unknown[],
): Promise<{ result?: unknown; error?: { code: number; message: string; data?: unknown } }> {
  return (await rpc(node.dedicatedUrl, { jsonrpc: "2.0", id: 1, method, params })) as never;
}

async function nonceOf(address: string, tag = "pending"): Promise<number> {
  return Number((await call("eth_getTransactionCount", [address, tag])).result);
}

async function sign(
  account: PrivateKeyAccount,
  tx: Record<string, unknown>,
): Promise<`0x${string}`> {
  return account.signTransaction({
    chainId: Number(node.chainId),
    type: "eip1559",
    gas: 21000n,
    maxFeePerGas: parseGwei("20"),
    maxPriorityFeePerGas: parseGwei("1"),
    to: bob.address,
    value: 1n,
    ...tx,
  } as never);
}

describe("transaction intake", () => {
  before(async () => {
    const { startTestDevNode } = await import("../utils/devChain.ts");
    // Blocks seal only on evm_mine: what is pre-confirmed stays so while a test looks at it.
    node = await startTestDevNode({ blockTimeMs: 3_600_000 });
    alice = privateKeyToAccount(node.accounts[3]!.privateKey as `0x${string}`);
    bob = privateKeyToAccount(node.accounts[4]!.privateKey as `0x${string}`);
  });
  after(async () => {
    await node.close();
  });

  test("geth's refusals, with geth's texts", async () => {
    const nonce = await nonceOf(alice.address);
    const ok = await sign(alice, { nonce });
    const hash = (await call("eth_sendRawTransaction", [ok])).result as string;
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    // Resent at once it is still in the pool or already pre-confirmed (200 ms flashblocks).
    const again = await call("eth_sendRawTransaction", [ok]);
    assert.ok(
      again.error?.message === "already known" || /nonce too low/.test(again.error?.message ?? ""),
      JSON.stringify(again),
    );
    // A gapped transaction stays queued, so a resend is always the pool's "already known"
    // (another account: the gap must not meet this test's later nonces).
    const carol = privateKeyToAccount(node.accounts[2]!.privateKey as `0x${string}`);
    const queued = await sign(carol, { nonce: (await nonceOf(carol.address)) + 5 });
    assert.match((await call("eth_sendRawTransaction", [queued])).result as string, /^0x/);
    const resent = await call("eth_sendRawTransaction", [queued]);
    assert.equal(resent.error?.code, -32000);
    assert.equal(resent.error?.message, "already known");
    await pollUntil(
      async () => (await call("eth_getTransactionReceipt", [hash])).result,
      (v) => v !== null,
      30_000,
    );
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      // geth's text; the hint after it says the nonce is taken only in the pre-confirmed block.
      [
        { nonce, value: 5n },
        /^nonce too low: next nonce \d+, tx nonce \d+( \(a pre-confirmed transaction uses it; .*\))?$/,
      ],
      [
        { nonce: nonce + 1, gas: 20000n },
        /^intrinsic gas too low: gas 20000, minimum needed 21000$/,
      ],
      [
        { nonce: nonce + 1, value: 10n ** 30n },
        /^insufficient funds for gas \* price \+ value: balance \d+, tx cost \d+, overshot \d+$/,
      ],
      [
        { nonce: nonce + 1, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n },
        /^max fee per gas less than block base fee/,
      ],
      [
        { nonce: nonce + 1, gas: 100_000_000n },
        /^transaction gas limit too high \(cap: 16777216, tx: 100000000\)$/,
      ],
    ];
    for (const [tx, message] of cases) {
      const r = await call("eth_sendRawTransaction", [await sign(alice, tx)]);
      assert.equal(
        r.error?.code,
        -32000,
        JSON.stringify(tx, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
      );
      assert.match(r.error!.message, message);
    }
    const wrongChain = await alice.signTransaction({
      chainId: 1,
      type: "eip1559",
      nonce: nonce + 1,
      gas: 21000n,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: 1n,
      to: bob.address,
    });
    assert.equal(
      (await call("eth_sendRawTransaction", [wrongChain])).error?.message,
      "invalid chain id for signer",
    );
    const r = await call("eth_sendRawTransaction", ["0xdeadbeef"]);
    assert.equal(r.error?.code, -32000);
  });

  test("a nonce gap is queued, then released when the gap fills", async () => {
    const nonce = await nonceOf(alice.address);
    const later = (await call("eth_sendRawTransaction", [await sign(alice, { nonce: nonce + 1 })]))
      .result as string;
    // A transaction sent after it is pre-confirmed: the gapped one, taken first, was not.
    const after = (await call("eth_sendRawTransaction", [await sign(bob, { to: alice.address })]))
      .result as string;
    await pollUntil(
      async () => (await call("eth_getTransactionReceipt", [after])).result,
      (v) => v !== null,
    );
    assert.equal(
      (await call("eth_getTransactionReceipt", [later])).result,
      null,
      "gapped tx waits",
    );
    const first = (await call("eth_sendRawTransaction", [await sign(alice, { nonce })]))
      .result as string;
    for (const h of [first, later]) {
      await pollUntil(
        async () => (await call("eth_getTransactionReceipt", [h])).result,
        (v) => v !== null,
        30_000,
      );
    }
  });

  test("a same-nonce replacement needs a 10% higher price", async () => {
    const nonce = await nonceOf(alice.address);
    // Queue behind a gap so the first version is still waiting when the replacement arrives.
    await call("eth_sendRawTransaction", [await sign(alice, { nonce: nonce + 1 })]);
    const low = await call("eth_sendRawTransaction", [
      await sign(alice, { nonce: nonce + 1, value: 2n, maxPriorityFeePerGas: parseGwei("1.05") }),
    ]);
    assert.equal(low.error?.message, "replacement transaction underpriced");
    const high = await call("eth_sendRawTransaction", [
      await sign(alice, {
        nonce: nonce + 1,
        value: 3n,
        maxFeePerGas: parseGwei("30"),
        maxPriorityFeePerGas: parseGwei("2"),
      }),
    ]);
    assert.match(high.result as string, /^0x/);
    await call("eth_sendRawTransaction", [await sign(alice, { nonce })]);
    await pollUntil(
      () => nonceOf(alice.address, "pending"),
      (n) => n === nonce + 2,
    );
  });

  test("evm_mine seals the block being built, with everything sent before it", async () => {
    const nonce = await nonceOf(alice.address);
    const hashes: string[] = [];
    for (let i = 0; i < 3; i++)
      hashes.push(
        (await call("eth_sendRawTransaction", [await sign(alice, { nonce: nonce + i })]))
          .result as string,
      );
    assert.equal((await call("evm_mine", [])).result, "0x0");
    const block = (await call("eth_getBlockByNumber", ["latest", false])).result as {
      transactions: string[];
    };
    for (const h of hashes) assert.ok(block.transactions.includes(h), `${h} sealed by evm_mine`);
  });

  test("eth_sendRawTransactionSync returns the pre-confirmed receipt", async () => {
    const nonce = await nonceOf(alice.address);
    const r = await call("eth_sendRawTransactionSync", [await sign(alice, { nonce })]);
    const receipt = r.result as { status: string; blockHash: string; blockNumber: string };
    assert.equal(receipt.status, "0x1", JSON.stringify(r));
    // Answered at its flashblock: its block is not sealed (blocks seal only on evm_mine here).
    assert.equal(receipt.blockHash, `0x${"00".repeat(32)}`, "the pre-confirmed receipt");
    // A gapped transaction cannot be pre-confirmed: timeout error, code 4, hash as data.
    const gapped = await call("eth_sendRawTransactionSync", [
      await sign(alice, { nonce: nonce + 5 }),
      300,
    ]);
    assert.equal(gapped.error?.code, 4);
    assert.equal(
      gapped.error?.message,
      "The transaction was added to the transaction pool but wasn't processed in 300ms",
    );
    assert.match(String(gapped.error?.data), /^0x[0-9a-f]{64}$/);
  });

  test("legacy, access-list, EIP-1559 and EIP-7702 transactions execute; blob ones are refused (OP stack)", async () => {
    const wallet = createWalletClient({
      account: bob,
      chain: chainOf(node),
      transport: http(node.dedicatedUrl),
    });
    const hashes = [
      await wallet.sendTransaction({
        to: alice.address,
        value: 1n,
        type: "legacy",
        gasPrice: parseGwei("20"),
      }),
      await wallet.sendTransaction({
        to: alice.address,
        value: 1n,
        type: "eip2930",
        gasPrice: parseGwei("20"),
        accessList: [{ address: alice.address, storageKeys: [] }],
      }),
      await wallet.sendTransaction({ to: alice.address, value: 1n, type: "eip1559" }),
    ];
    // The dev chain is an OP-stack chain: no blob transactions there, as op-geth refuses them.
    await assert.rejects(
      wallet.sendTransaction({
        blobs: toBlobs({ data: `0x${"ab".repeat(500)}` }),
        kzg: kzg(),
        maxFeePerBlobGas: parseGwei("30"),
        to: alice.address,
        type: "eip4844",
      } as never),
      /transaction type not supported/,
    );
    const authorization = await wallet.signAuthorization({
      account: bob,
      contractAddress: alice.address,
      executor: "self",
    });
    hashes.push(
      await wallet.sendTransaction({
        to: bob.address,
        authorizationList: [authorization],
        type: "eip7702",
      }),
    );
    const types: string[] = [];
    for (const h of hashes) {
      const receipt = await pollUntil(
        async () =>
          (await call("eth_getTransactionReceipt", [h])).result as {
            type: string;
            status: string;
          } | null,
        (v) => v !== null,
        30_000,
      );
      assert.equal(receipt!.status, "0x1");
      types.push(receipt!.type);
    }
    assert.deepEqual(types, ["0x0", "0x1", "0x2", "0x4"]);
    const code = (await call("eth_getCode", [bob.address, "pending"])).result as string;
    assert.equal(
      code,
      `0xef0100${alice.address.slice(2).toLowerCase()}`,
      "7702 delegation designator",
    );
  });

  test("on a plain Ethereum chain (--ethereum) a blob transaction executes", async () => {
    const { startTestDevNode } = await import("../utils/devChain.ts");
    const eth = await startTestDevNode({ ethereum: true });
    try {
      const wallet = createWalletClient({
        account: bob,
        chain: chainOf(eth),
        transport: http(eth.dedicatedUrl),
      });
      // A sidecar of per-blob proofs (viem's); the node converts it to Osaka's cell proofs, as
      // geth does.
      const hash = await wallet.sendTransaction({
        blobs: toBlobs({ data: `0x${"ab".repeat(500)}` }),
        kzg: kzg(),
        maxFeePerBlobGas: parseGwei("30"),
        to: alice.address,
        type: "eip4844",
      } as never);
      const receipt = (await pollUntil(
        () => fixtureCall(eth.dedicatedUrl, "eth_getTransactionReceipt", [hash]),
        (v) => v !== null,
      )) as { type: string; status: string; blobGasUsed: string; blockNumber: string };
      assert.equal(receipt.type, "0x3");
      assert.equal(receipt.status, "0x1");
      assert.equal(receipt.blobGasUsed, "0x20000", "one blob");
      // No L1-info deposit on a plain Ethereum chain: the receipt's block holds no deposit.
      const block = (await pollUntil(
        () => fixtureCall(eth.dedicatedUrl, "eth_getBlockByNumber", [receipt.blockNumber, true]),
        (b) => b !== null,
      )) as { transactions: { type: string }[] };
      assert.deepEqual(
        block.transactions.map((t) => t.type),
        ["0x3"],
      );
    } finally {
      await eth.close();
    }
  });

  test("a single call past --request-timeout is answered -32002 over HTTP", async () => {
    const { startTestDevNode } = await import("../utils/devChain.ts");
    const short = await startTestDevNode({
      frontend: testFrontendOptions(["--request-timeout", "250ms"]),
    });
    try {
      // A gapped transaction is never pre-confirmed: the sync send would wait its 5 s.
      const raw = await signTransfer(short, 1, { nonce: 7 });
      const r = await rpc(short.dedicatedUrl, {
        jsonrpc: "2.0",
        id: 42,
        method: "eth_sendRawTransactionSync",
        params: [raw, 5000],
      });
      assert.deepEqual(r, {
        jsonrpc: "2.0",
        id: 42,
        error: { code: -32002, message: "request timed out" },
      });
      // The request timeout's own answer: the 5 s wait would have ended with code 4.
    } finally {
      await short.close();
    }
  });
});
