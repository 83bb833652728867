// The transactions of the execution-apis txpool fixtures, and a backend whose pool holds a
// chosen set of them (over the fixture chain's config and an empty archive): the txpool_*
// methods' tests check geth's rendering without running a sequencer.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Common } from "@ethereumjs/common";
import {
  createBlob4844TxFromSerializedNetworkWrapper,
  createMinimal4844TxFromNetworkWrapper,
} from "@ethereumjs/tx";
import { chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { createBackend } from "../../src/node/backendFactory.ts";
import type { PoolContent, PoolTransaction } from "../../src/services/transactions.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { openKvEnv } from "../../src/store/lmdb.ts";
import { hexToBytes } from "../../src/util/hex.ts";
import { type Caller, callerFor } from "./fixtureChain.ts";
import { FIXTURES, GENESIS, tempDatadir } from "./fixtures.ts";

/** The raw transaction a tests-more file sends (its first eth_sendRawTransaction). */
function sentBy(file: string): string {
  const line = readFileSync(join(FIXTURES, "tests-more", file), "utf8")
    .split("\n")
    .find((l) => l.startsWith(">> ") && l.includes("eth_sendRawTransaction"));
  if (line === undefined) throw new Error(`${file} sends no transaction`);
  return (JSON.parse(line.slice(3)) as { params: [string] }).params[0];
}

export const SENDER_A = "0x0c2c51a0990aee1d73c1228de158688341557508";
export const SENDER_B = "0x14e46043e63d0e3cdcf2530519f4cfaf35058cb2";
export const BLOB_SENDER = "0x1f4924b14f34e24159387c0a4cdbaa32f3ddb0cf";

/** Sender A's nonces 0 (legacy), 2 (access list) and 3 (dynamic fee); B's 0; a blob sender's 0. */
export async function fixtureTransactions() {
  const tx = (sender: string, raw: string): PoolTransaction => ({
    sender: hexToBytes(sender),
    raw: hexToBytes(raw),
  });
  return {
    legacy: tx(SENDER_A, sentBy("eth_sendRawTransaction/send-legacy-transaction.io")),
    accessList: tx(SENDER_A, sentBy("eth_sendRawTransaction/send-access-list-transaction.io")),
    dynamicFee: tx(
      SENDER_A,
      sentBy("eth_sendRawTransaction/send-dynamic-fee-access-list-transaction.io"),
    ),
    fromMempool: tx(SENDER_B, sentBy("testing_buildBlockV1/build-block-from-mempool.io")),
    blob: await blobTx(BLOB_SENDER, sentBy("eth_sendRawTransaction/send-blob-tx.io")),
  };
}

/** A blob transaction as the pool holds one: its block form, and its network form beside it. */
async function blobTx(sender: string, network: string): Promise<PoolTransaction> {
  const withSidecar = hexToBytes(network);
  const common = await osaka();
  const tx = createBlob4844TxFromSerializedNetworkWrapper(withSidecar, { common });
  return {
    sender: hexToBytes(sender),
    raw: createMinimal4844TxFromNetworkWrapper(tx, { common }).serialize(),
    withSidecar,
  };
}

async function osaka(): Promise<Common> {
  const spec = await chainSpecFromGenesis(JSON.parse(readFileSync(GENESIS, "utf8")));
  const common = spec.common.copy();
  common.setHardfork("osaka");
  return common;
}

/** geth's rendering of each fixture transaction in txpool_content, by hash. */
export function gethPoolRendering(): Map<string, unknown> {
  const text = readFileSync(join(FIXTURES, "tests-more/txpool_content/get-content.io"), "utf8");
  const line = text.split("\n").find((l) => l.startsWith("<< "))!;
  const result = (JSON.parse(line.slice(3)) as { result: { pending: Record<string, unknown> } })
    .result;
  const out = new Map<string, unknown>();
  for (const byNonce of Object.values(result.pending))
    for (const tx of Object.values(byNonce as Record<string, { hash: string }>))
      out.set(tx.hash, tx);
  return out;
}

/** A dispatcher over the fixture chain's config whose pool holds `content` (none: no pool). */
export async function poolCaller(
  content: PoolContent | undefined,
): Promise<{ call: Caller; close(): Promise<void> }> {
  const spec = await chainSpecFromGenesis(JSON.parse(readFileSync(GENESIS, "utf8")));
  const env = openKvEnv(tempDatadir("pool"));
  const backend = createBackend(spec, createChainStore(env), {
    transactions: {
      submit: () => Promise.reject(new Error("not in this test")),
      poolNonce: () => undefined,
      mine: () => Promise.reject(new Error("not in this test")),
      waitForReceipt: async () => false,
      ...(content === undefined ? {} : { poolContent: async () => content }),
    },
  });
  return { call: callerFor(backend), close: () => env.close() };
}
