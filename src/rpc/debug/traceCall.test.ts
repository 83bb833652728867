import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestDevNode, word } from "../../../test/utils/devChain.ts";
import { asm } from "../../../test/utils/evmAsm.ts";
import { call, callError } from "../../../test/utils/fixtures.ts";
import {
  calleeWord,
  deployTraceContracts,
  type Receipt,
} from "../../../test/utils/traceContracts.ts";
import type { RunningNode as DevNode } from "../../node/plan.ts";

let node: DevNode;
let callee: string;
let caller: string;
let from: string;
let mined: Receipt;
let loop: string;
type Frame = { gas: string; gasUsed: string; type: string; error?: string; calls?: Frame[] };

const traceError = (params: unknown[]) => callError(node.dedicatedUrl, "debug_traceCall", params);

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  const contracts = await deployTraceContracts(node);
  ({ callee, caller } = contracts);
  const sender = contracts.sender;
  from = sender.address;
  loop = (await sender.deploy(asm(["top:", "JUMPDEST", "@top", "JUMP"]))).contractAddress!;
  await call(node.dedicatedUrl, "evm_mine");
  const sent = await contracts.runCaller();
  await call(node.dedicatedUrl, "evm_mine");
  // The sealed receipt (the one sending returns is pre-confirmed: no block hash yet).
  mined = (await call(node.dedicatedUrl, "eth_getTransactionReceipt", [
    sent.transactionHash,
  ])) as Receipt;
});
after(async () => {
  await node?.close();
});

describe("debug_traceCall", () => {
  test("runs on the block's state with geth's default gas (the 50M RPC cap)", async () => {
    const args = { from, to: caller, data: calleeWord(callee) };
    const t = (await call(node.dedicatedUrl, "debug_traceCall", [
      args,
      "latest",
      { tracer: "callTracer" },
    ])) as Frame;
    assert.equal(t.gas, "0x2faf080");
    assert.deepEqual(
      t.calls?.map((c) => [c.type, c.error]),
      [
        ["CALL", undefined],
        ["CALL", "execution reverted"],
        ["STATICCALL", "out of gas: write protection"],
      ],
    );
    // Slot 0 already holds 5 after the mined transaction: rewriting it costs 2,100 + 100
    // instead of 2,100 + 20,000.
    assert.equal(t.calls?.[0]?.gasUsed, `0x${(23164 - 22100 + 2200).toString(16)}`);
    const logs = (await call(node.dedicatedUrl, "debug_traceCall", [args, "latest"])) as {
      structLogs: Array<{ gas: number }>;
    };
    assert.equal(logs.structLogs[0]?.gas, 50_000_000 - 21368);
  });

  test("txIndex: on the state before that transaction of the block", async () => {
    const t = (await call(node.dedicatedUrl, "debug_traceCall", [
      { from, to: caller, data: calleeWord(callee) },
      mined.blockNumber,
      { tracer: "callTracer", txIndex: "0x0" },
    ])) as Frame;
    // The slot is still empty: the first call pays for setting it, as the mined one did.
    assert.equal(t.calls?.[0]?.gasUsed, "0x5a7c");
    const pre = (await call(node.dedicatedUrl, "debug_traceCall", [
      { from, to: callee, data: word(7n) },
      mined.blockNumber,
      { tracer: "prestateTracer", txIndex: "0x0" },
    ])) as Record<string, { storage?: Record<string, string> }>;
    assert.deepEqual(pre[callee]?.storage, { [word(0n)]: word(0n) });
  });

  test("errors as geth words them", async () => {
    const args = { from, to: caller, data: calleeWord(callee) };
    assert.deepEqual(await traceError([args, "pending"]), {
      code: -32000,
      message: "tracing on top of pending is not supported",
    });
    assert.deepEqual(await traceError([args, "0x999"]), {
      code: -32000,
      message: "block #2457 not found",
    });
    assert.deepEqual(await traceError([args, word(1n)]), {
      code: -32000,
      message: `block ${word(1n)} not found`,
    });
    assert.deepEqual(await traceError([args, mined.blockNumber, { txIndex: "0x5" }]), {
      code: -32000,
      message: `transaction index 5 out of range for block ${mined.blockHash}`,
    });
    assert.deepEqual(await traceError([args, "latest", { stateOverrides: {} }]), {
      code: -32000,
      message: "state and block overrides are not supported",
    });
    assert.deepEqual(await traceError([args]), {
      code: -32602,
      message: "missing value for required argument 1",
    });
    // A loop that would run about 260,000 opcodes: stopped at its timeout (per transaction).
    for (const tracer of [undefined, "callTracer"]) {
      assert.deepEqual(
        await traceError([{ to: loop, gas: "0x100000" }, "latest", { tracer, timeout: "50ms" }]),
        { code: -32000, message: "execution timeout" },
      );
    }
    const poor = { from: word(9n).slice(0, 42), to: caller, value: "0x1" };
    assert.deepEqual(await traceError([poor, "latest"]), {
      code: -32000,
      message: `tracing failed: insufficient funds for gas * price + value: address ${poor.from}`,
    });
  });
});
