import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { fixtureTransactions } from "../../../test/utils/fixturePool.ts";
import { FIXTURES, rpc } from "../../../test/utils/fixtures.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";
import { bytesToHex } from "../../util/hex.ts";

/** The request/response pairs of a testing_buildBlockV1 fixture file. */
function exchanges(name: string): Array<{ request: Record<string, unknown>; response: unknown }> {
  const lines = readFileSync(join(FIXTURES, "tests-more/testing_buildBlockV1", name), "utf8")
    .split("\n")
    .filter((l) => l.startsWith(">> ") || l.startsWith("<< "));
  const out: Array<{ request: Record<string, unknown>; response: unknown }> = [];
  for (let i = 0; i + 1 < lines.length; i += 2)
    out.push({
      request: JSON.parse(lines[i]!.slice(3)),
      response: JSON.parse(lines[i + 1]!.slice(3)),
    });
  return out;
}

let server: RunningServer;
const HEAD = "0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7";
const attributes = {
  parentBeaconBlockRoot: "0xcf8e0d4e9587369b2301d0790347320302cc0943d5a1884365149a42212e8822",
  prevRandao: `0x${"00".repeat(32)}`,
  suggestedFeeRecipient: `0x${"00".repeat(20)}`,
  timestamp: "0x228",
  withdrawals: [],
};
const build = (params: unknown[]) =>
  rpc(server.dedicatedUrl, { jsonrpc: "2.0", id: 1, method: "testing_buildBlockV1", params });

// On the imported fixture chain (Osaka and BPO2 at the built block's time): the block's state
// root covers the EIP-4788 and EIP-2935 system calls, the withdrawals and the Prague requests.
describe("testing_buildBlockV1", () => {
  before(async () => {
    server = await fixtureServer("buildBlock");
  });
  after(async () => {
    await server?.close();
  });

  test("an empty block: geth's payload exactly", async () => {
    const [c] = exchanges("build-block-empty-transactions.io");
    assert.deepEqual(await rpc(server.dedicatedUrl, c!.request), c!.response);
  });

  test("a block of one given transaction: geth's roots, hash and block value", async () => {
    // The block geth built from its pool in build-block-from-mempool.io held the legacy
    // transaction alone: given explicitly, it must come out the same.
    const [, c] = exchanges("build-block-from-mempool.io");
    const expected = c!.response as { result: { executionPayload: { transactions: string[] } } };
    const reply = await build([
      HEAD,
      attributes,
      expected.result.executionPayload.transactions,
      "0x",
    ]);
    assert.deepEqual(reply, { ...expected, id: 1 });
  });

  test("a transaction that cannot apply is geth's error, and the chain does not move", async () => {
    const [bad, latest] = exchanges("build-block-invalid-transaction.io");
    assert.deepEqual(await rpc(server.dedicatedUrl, bad!.request), bad!.response);
    assert.deepEqual(await rpc(server.dedicatedUrl, latest!.request), latest!.response);
  });

  test("null transactions on a node without a pool: an empty block", async () => {
    const [empty] = exchanges("build-block-empty-transactions.io");
    const reply = (await build([HEAD, attributes, null])) as { result: unknown };
    assert.deepEqual(reply.result, (empty!.response as { result: unknown }).result);
  });

  test("refusals: not the head, a timestamp not after it, missing fields, bad withdrawals", async () => {
    const error = async (params: unknown[]) => ((await build(params)) as { error: unknown }).error;
    assert.deepEqual(await error([`0x${"11".repeat(32)}`, attributes, []]), {
      code: -32000,
      message: "parentHash is not current head",
    });
    assert.deepEqual(await error([HEAD, { ...attributes, timestamp: "0x21c" }, []]), {
      code: -32000,
      message: "invalid timestamp, parent 540 given 540",
    });
    const { timestamp: _, ...noTimestamp } = attributes;
    assert.deepEqual(await error([HEAD, noTimestamp, []]), {
      code: -32602,
      message: "invalid argument 1: missing required field 'timestamp' for PayloadAttributes",
    });
    assert.deepEqual(await error([HEAD, { ...attributes, withdrawals: [{ index: "0x0" }] }, []]), {
      code: -32602,
      message: "invalid argument 1: missing required field 'validatorIndex' for Withdrawal",
    });
    assert.deepEqual(await error([HEAD]), {
      code: -32602,
      message: "missing value for required argument 1",
    });
  });

  test("geth's texts for a transaction that cannot run: fee cap, funds, EIP-7825 cap", async () => {
    const account = privateKeyToAccount(`0x${"42".repeat(32)}`);
    const who = account.address; // viem checksums, as geth's msg.From.Hex()
    const sign = (fields: { maxFeePerGas: bigint; gas: bigint }) =>
      account.signTransaction({
        chainId: 3503995874084926,
        type: "eip1559",
        nonce: 0,
        maxPriorityFeePerGas: 1n,
        to: who,
        value: 1n,
        ...fields,
      });
    const error = async (raw: string) =>
      ((await build([HEAD, attributes, [raw]])) as { error: unknown }).error;
    assert.deepEqual(await error(await sign({ maxFeePerGas: 1n, gas: 21000n })), {
      code: -32000,
      message: `max fee per gas less than block base fee: address ${who}, maxFeePerGas: 1, baseFee: 23985819`,
    });
    assert.deepEqual(await error(await sign({ maxFeePerGas: 10n ** 9n, gas: 21000n })), {
      code: -32000,
      message: `insufficient funds for gas * price + value: address ${who} have 0 want ${21000n * 10n ** 9n + 1n}`,
    });
    assert.deepEqual(await error(await sign({ maxFeePerGas: 10n ** 9n, gas: 2n ** 24n + 1n })), {
      code: -32000,
      message: "transaction gas limit too high (cap: 16777216, tx: 16777217)",
    });
  });

  test("a blob transaction with its sidecar: the block holds it bare, the bundle the sidecar", async () => {
    const blob = (await fixtureTransactions()).blob;
    const reply = (await build([HEAD, attributes, [bytesToHex(blob.withSidecar!)]])) as {
      result: {
        executionPayload: { transactions: string[]; blobGasUsed: string };
        blobsBundle: { commitments: string[]; proofs: string[]; blobs: string[] };
      };
    };
    assert.deepEqual(reply.result.executionPayload.transactions, [bytesToHex(blob.raw)]);
    assert.equal(reply.result.executionPayload.blobGasUsed, "0x20000");
    const bundle = reply.result.blobsBundle;
    // Osaka's sidecars: 128 cell proofs per blob (EIP-7594).
    assert.deepEqual(
      [bundle.commitments.length, bundle.blobs.length, bundle.proofs.length],
      [1, 1, 128],
    );
    // Without its sidecar a blob transaction cannot be built into a block.
    const bare = (await build([HEAD, attributes, [bytesToHex(blob.raw)]])) as { error: unknown };
    assert.deepEqual(bare.error, { code: -32000, message: "blob transaction without blobs" });
  });

  test("extraData is the block's, unchecked as geth leaves it", async () => {
    const extra = `0x${"ee".repeat(40)}`;
    const reply = (await build([HEAD, attributes, [], extra])) as {
      result: { executionPayload: { extraData: string } };
    };
    assert.equal(reply.result.executionPayload.extraData, extra);
  });

  test("withdrawals credit their addresses: the state root moves, the list comes back", async () => {
    const withdrawals = [
      {
        index: "0x0",
        validatorIndex: "0x5",
        address: `0x${"ab".repeat(20)}`,
        amount: "0x3b9aca00",
      },
    ];
    const reply = (await build([HEAD, { ...attributes, withdrawals }, []])) as {
      result: { executionPayload: { withdrawals: unknown; stateRoot: string } };
    };
    assert.deepEqual(reply.result.executionPayload.withdrawals, withdrawals);
    assert.notEqual(
      reply.result.executionPayload.stateRoot,
      "0x2e1f908bee2d5c32b5954f3c78bb74a96ed4118c8a44ceec7cbed68843126765",
    );
  });
});
