import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { startTestDevNode, word } from "../../../test/utils/devChain.ts";
import { call, callError } from "../../../test/utils/fixtures.ts";
import { deployTraceContracts, type Receipt } from "../../../test/utils/traceContracts.ts";
import type { RunningNode as DevNode } from "../../node/plan.ts";

let node: DevNode;

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
});
after(async () => {
  await node?.close();
});

const traceError = (params: unknown[]) =>
  callError(node.dedicatedUrl, "debug_traceBlockByHash", params);

test("debug_traceBlockByHash: the block's traces in order, as by number; geth's errors", async () => {
  const contracts = await deployTraceContracts(node);
  const sent = await contracts.runCaller();
  await call(node.dedicatedUrl, "evm_mine");
  const third = (await call(node.dedicatedUrl, "eth_getTransactionReceipt", [
    sent.transactionHash,
  ])) as Receipt;
  const config = { tracer: "callTracer", tracerConfig: { withLog: true } };
  const byHash = (await call(node.dedicatedUrl, "debug_traceBlockByHash", [
    third.blockHash,
    config,
  ])) as Array<{ txHash: string; result: { type: string; to: string } }>;
  const byNumber = await call(node.dedicatedUrl, "debug_traceBlockByNumber", [
    third.blockNumber,
    config,
  ]);
  assert.deepEqual(byHash, byNumber);
  // The OP-stack dev chain's block opens with its L1-info deposit (a call to L1Block).
  assert.deepEqual(
    byHash.map((r) => r.result.type),
    ["CALL", "CREATE", "CREATE", "CALL"],
  );
  assert.equal(byHash[0]?.result.to, "0x4200000000000000000000000000000000000015");
  assert.equal(byHash[3]?.txHash, third.transactionHash);
  // The third transaction's trace in the block is its trace alone.
  assert.deepEqual(
    byHash[3]?.result,
    await call(node.dedicatedUrl, "debug_traceTransaction", [third.transactionHash, config]),
  );
  assert.deepEqual(await traceError([word(1n)]), {
    code: -32000,
    message: `block ${word(1n)} not found`,
  });
  const genesis = (await call(node.dedicatedUrl, "eth_getBlockByNumber", ["0x0", false])) as {
    hash: string;
  };
  assert.deepEqual(await traceError([genesis.hash]), {
    code: -32000,
    message: "genesis is not traceable",
  });
  assert.deepEqual(await traceError(["0x12"]), {
    code: -32602,
    message: "invalid argument 0: hex string has length 2, want 64 for common.Hash",
  });
});
