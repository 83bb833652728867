// Shared by the replica end-to-end tests: raw JSON-RPC answers (byte-identical answers are the
// point), a replica's chain compared block by block with the sequencer's, and a signer for the
// dev account that deploys and drives the storage contract.
import assert from "node:assert/strict";
import { parseGwei } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { RunningNode as DevNode } from "../../src/node/plan.ts";
import { pollUntil } from "./devChain.ts";

/** The raw JSON text of one call. */
export async function rawCall(url: string, method: string, params: unknown[]): Promise<string> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return res.text();
}

/**
 * Blocks 0..to answer byte-identically on both nodes: receipts and the block (with full
 * transactions); returns how many transactions they carry.
 */
export async function assertSameBlocks(
  sequencerUrl: string,
  replicaUrl: string,
  to: number,
): Promise<number> {
  let transactions = 0;
  for (let n = 0; n <= to; n++) {
    const tag = `0x${n.toString(16)}`;
    for (const [method, params] of [
      ["eth_getBlockReceipts", [tag]],
      ["eth_getBlockByNumber", [tag, true]],
    ] as const) {
      const [a, b] = await Promise.all([
        rawCall(sequencerUrl, method, [...params]),
        rawCall(replicaUrl, method, [...params]),
      ]);
      assert.equal(b, a, `${method} of block ${n}`);
      if (method === "eth_getBlockReceipts") transactions += (JSON.parse(a).result as []).length;
    }
  }
  return transactions;
}

export type NonceSigner = (tx: {
  gas: bigint;
  data: `0x${string}`;
  to?: `0x${string}`;
}) => Promise<`0x${string}`>;

/** Signs dev account `index`'s transactions with consecutive nonces from 0. */
export function nonceSigner(dev: DevNode, index: number): NonceSigner {
  const account = privateKeyToAccount(dev.accounts[index]!.privateKey as `0x${string}`);
  let nonce = 0;
  return (tx) =>
    account.signTransaction({
      chainId: Number(dev.chainId),
      type: "eip1559",
      nonce: nonce++,
      gas: tx.gas,
      maxFeePerGas: parseGwei("20"),
      maxPriorityFeePerGas: 1n,
      ...(tx.to === undefined ? {} : { to: tx.to }),
      data: tx.data,
    });
}

/**
 * Waits until the replica at `baseUrl` (its root URL) says it is ready and its /metrics reports
 * a lag of at most `maxLagBlocks`: right after catching up it may fall behind again for a moment
 * on a loaded machine, and the assertion is that it gets there, not when. Fails if /metrics has
 * no lag figure.
 */
export async function waitForReplicaReady(baseUrl: string, maxLagBlocks = 10): Promise<void> {
  const health = await pollUntil(
    async () => {
      const metrics = await (await fetch(`${baseUrl}metrics`)).text();
      const lag = /^flashnode_replica_lag_blocks (\d+)$/m.exec(metrics)?.[1];
      return {
        lag,
        seconds: /^flashnode_replica_lag_seconds /m.test(metrics),
        ready: (await fetch(`${baseUrl}readyz`)).status,
      };
    },
    (h) => h.lag === undefined || (Number(h.lag) <= maxLagBlocks && h.ready === 200),
    60_000,
  );
  assert.ok(health.lag !== undefined, "/metrics reports flashnode_replica_lag_blocks");
  assert.ok(health.seconds, "/metrics reports flashnode_replica_lag_seconds");
  assert.equal(health.ready, 200, "/readyz");
}
