// A geth genesis with BPO forks and their blobSchedule: the fork schedule is read by timestamp,
// the BPO blob parameters apply, and blocks with blobs execute and seal under them.
import assert from "node:assert/strict";
import { test } from "node:test";
import ckzg from "c-kzg";
import { createWalletClient, defineChain, http, parseGwei, toBlobs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { chainSpecFromGenesis, commonAt } from "../../src/chain/genesis.ts";
import { pollUntil, startTestDevNode } from "../utils/devChain.ts";
import { rpc } from "../utils/fixtures.ts";

const BPO2_TIME = 4_000_000_000; // 2096: the dev chain runs under BPO1

function bpoGenesis(): Record<string, unknown> {
  const genesis = devGenesis({
    chainId: 31337n,
    fork: "osaka",
    accounts: devAccounts(2),
    balanceWei: 10n ** 22n,
    gasLimit: 60_000_000n,
    timestamp: 0n,
  }) as { config: Record<string, unknown> & { blobSchedule: Record<string, unknown> } };
  genesis.config.bpo1Time = 0;
  genesis.config.bpo2Time = BPO2_TIME;
  genesis.config.blobSchedule.bpo1 = { target: 10, max: 15, baseFeeUpdateFraction: 8346193 };
  genesis.config.blobSchedule.bpo2 = { target: 14, max: 21, baseFeeUpdateFraction: 11684671 };
  return genesis;
}

test("BPO forks: schedule by timestamp, blob parameters from blobSchedule", async () => {
  const spec = await chainSpecFromGenesis(bpoGenesis());
  const at = (t: number) => commonAt(spec, 1n, BigInt(t));
  assert.equal(at(1_800_000_000).hardfork(), "bpo1");
  assert.equal(at(BPO2_TIME).hardfork(), "bpo2");
  // The fork-scoped blob parameters (getBlobGasSchedule multiplies them by the block library's
  // blobGasPerBlob, registered once a header exists).
  const params = (c: ReturnType<typeof at>) =>
    ["target", "max", "blobGasPriceUpdateFraction"].map((p) => c.param(p));
  assert.deepEqual(params(at(1_800_000_000)), [10n, 15n, 8346193n]);
  assert.deepEqual(params(at(BPO2_TIME)), [14n, 21n, 11684671n]);
});

test("a dev chain under BPO1 executes and seals a blob transaction", async () => {
  const node = await startTestDevNode({ genesis: bpoGenesis(), blockTimeMs: 3_600_000 });
  try {
    const call = async (method: string, params: unknown[]) =>
      (await rpc(node.dedicatedUrl, { jsonrpc: "2.0", id: 1, method, params })) as {
        result?: unknown;
        error?: { message: string };
      };
    const account = privateKeyToAccount(node.accounts[0]!.privateKey as `0x${string}`);
    const wallet = createWalletClient({
      account,
      chain: defineChain({
        id: 31337,
        name: "bpo",
        nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
        rpcUrls: { default: { http: [node.dedicatedUrl] } },
      }),
      transport: http(node.dedicatedUrl),
    });
    ckzg.loadTrustedSetup(0);
    const hash = await wallet.sendTransaction({
      blobs: toBlobs({ data: `0x${"cd".repeat(500)}` }),
      kzg: {
        blobToKzgCommitment: ckzg.blobToKzgCommitment,
        computeBlobKzgProof: ckzg.computeBlobKzgProof,
      },
      maxFeePerBlobGas: parseGwei("30"),
      to: account.address,
      type: "eip4844",
    } as never);
    await pollUntil(
      async () => (await call("eth_getTransactionReceipt", [hash])).result,
      (r) => r !== null && r !== undefined,
      30_000,
    );
    assert.equal((await call("evm_mine", [])).result, "0x0");
    const receipt = (await call("eth_getTransactionReceipt", [hash])).result as {
      status: string;
      blockNumber: string;
      blobGasUsed: string;
    };
    assert.equal(receipt.status, "0x1");
    assert.equal(receipt.blobGasUsed, "0x20000");
    const block = (await call("eth_getBlockByNumber", [receipt.blockNumber, false])).result as {
      blobGasUsed: string;
    };
    assert.equal(block.blobGasUsed, "0x20000");
    const history = (await call("eth_feeHistory", ["0x1", receipt.blockNumber, []])).result as {
      blobGasUsedRatio: number[];
    };
    // One blob of BPO1's 15 (Osaka's own maximum is 9: that would be 0.111…).
    assert.equal(history.blobGasUsedRatio[0], 1 / 15);
  } finally {
    await node.close();
  }
});
