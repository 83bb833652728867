import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestDevNode, word } from "../../../test/utils/devChain.ts";
import { call, callError } from "../../../test/utils/fixtures.ts";
import {
  calleeWord,
  deployTraceContracts,
  devSender,
  type Receipt,
} from "../../../test/utils/traceContracts.ts";
import type { RunningNode as DevNode } from "../../node/plan.ts";

let node: DevNode;
let callee: string;
let caller: string;
let from: string;
let receipt: Receipt;
type StructLog = Record<string, unknown> & { pc: number; op: string; depth: number };
type Trace = { gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] };

const trace = (config?: unknown) =>
  call(node.dedicatedUrl, "debug_traceTransaction", [receipt.transactionHash, config]);

const traceError = (params: unknown[]) =>
  callError(node.dedicatedUrl, "debug_traceTransaction", params);

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  const contracts = await deployTraceContracts(node);
  ({ callee, caller } = contracts);
  from = contracts.sender.address;
  await call(node.dedicatedUrl, "evm_mine");
  // Alone in its block: its block's parent holds the state it starts from.
  receipt = await contracts.runCaller();
  await call(node.dedicatedUrl, "evm_mine");
});
after(async () => {
  await node?.close();
});

describe("debug_traceTransaction", () => {
  test("struct logs carry geth's gas, costs, stack, storage and errors", async () => {
    const t = (await trace()) as Trace;
    assert.equal(t.gas, Number(receipt.gasUsed));
    assert.equal(t.gas, 296063);
    assert.equal(t.failed, false);
    assert.equal(t.returnValue, word(6n));
    assert.equal(t.structLogs.length, 86);
    const at = (pc: number, depth: number, op: string) =>
      t.structLogs.find((l) => l.pc === pc && l.depth === depth && l.op === op);
    // 300,000 gas less the intrinsic 21,000 + 12 zero bytes × 4 + 20 non-zero bytes × 16.
    assert.deepEqual(t.structLogs[0], {
      pc: 0,
      op: "PUSH1",
      gas: 278632,
      gasCost: 3,
      depth: 1,
      stack: [],
    });
    // MSTORE at 0x40: 3 + memory grown to 3 words (9).
    assert.deepEqual(at(4, 1, "MSTORE"), {
      pc: 4,
      op: "MSTORE",
      gas: 278626,
      gasCost: 12,
      depth: 1,
      stack: ["0x5", "0x40"],
    });
    // CALL: 100 warm + 2,500 cold callee + 3 memory, plus the gas handed over: all but a 64th
    // of the 275,988 left (271,676).
    assert.deepEqual(at(19, 1, "CALL"), {
      pc: 19,
      op: "CALL",
      gas: 278591,
      gasCost: 274279,
      depth: 1,
      stack: [
        "0x20",
        "0x60",
        "0x20",
        "0x40",
        "0x0",
        `0x${callee.slice(2).replace(/^0+/, "")}`,
        "0x4403f",
      ],
    });
    const first = t.structLogs.indexOf(at(19, 1, "CALL")!);
    assert.deepEqual(t.structLogs[first + 1], {
      pc: 0,
      op: "CALLDATASIZE",
      gas: 271676,
      gasCost: 2,
      depth: 2,
      stack: [],
    });
    // SSTORE of a cold, empty slot: 2,100 + 20,000; the contract's storage as the logger saw it.
    const sstores = t.structLogs.filter((l) => l.op === "SSTORE");
    assert.deepEqual(sstores[0], {
      pc: 49,
      op: "SSTORE",
      gas: 271648,
      gasCost: 22100,
      depth: 2,
      stack: ["0x5", "0x5", "0x0"],
      storage: { [word(0n)]: word(5n) },
    });
    // LOG1 of 32 bytes: 375 + 375 per topic + 8 per byte.
    assert.equal(t.structLogs.find((l) => l.op === "LOG1")?.gasCost, 1006);
    // The same SSTORE in the static call: refused in its gas function, reported with the step.
    assert.deepEqual(sstores[1], {
      pc: 49,
      op: "SSTORE",
      gas: 248520,
      gasCost: 0,
      depth: 2,
      error: "out of gas: write protection",
      stack: ["0x5", "0x5", "0x0"],
      storage: { [word(0n)]: word(5n) },
    });
  });

  test("options: no stack, memory as words, return data, a size limit", async () => {
    const t = (await trace({
      disableStack: true,
      enableMemory: true,
      enableReturnData: true,
      disableStorage: true,
    })) as Trace;
    const callStep = t.structLogs.find((l) => l.op === "CALL")!;
    assert.deepEqual(callStep, {
      pc: 19,
      op: "CALL",
      gas: 278591,
      gasCost: 274279,
      depth: 1,
      memory: [word(0n), word(0n), word(5n)],
    });
    // After the first call, the caller's frame holds what it returned.
    const afterCall = t.structLogs.find((l) => l.pc === 20 && l.depth === 1)!;
    assert.equal(afterCall.returnData, word(6n));
    assert.ok(t.structLogs.every((l) => !("stack" in l) && !("storage" in l)));
    const limited = (await trace({ limit: 1 })) as Trace;
    assert.equal(limited.structLogs.length, 1);
  });

  test("callTracer: the nested calls, the revert reason, the static write, the logs", async () => {
    const t = await trace({ tracer: "callTracer", tracerConfig: { withLog: true } });
    const revertData = `0x08c379a0${word(0x20n).slice(2)}${word(4n).slice(2)}${"6e6f7065".padEnd(64, "0")}`;
    assert.deepEqual(t, {
      from,
      gas: "0x493e0",
      gasUsed: "0x4847f",
      to: caller,
      input: calleeWord(callee),
      output: word(6n),
      calls: [
        {
          from: caller,
          gas: "0x4253c",
          gasUsed: "0x5a7c",
          to: callee,
          input: word(5n),
          output: word(6n),
          logs: [
            {
              address: callee,
              topics: [word(0xaan)],
              data: word(6n),
              index: "0x0",
              position: "0x0",
            },
          ],
          value: "0x0",
          type: "CALL",
        },
        {
          from: caller,
          gas: "0x3cbaf",
          gasUsed: "0x51",
          to: callee,
          input: "0x",
          output: revertData,
          error: "execution reverted",
          revertReason: "nope",
          value: "0x0",
          type: "CALL",
        },
        {
          from: caller,
          gas: "0x3cae4",
          gasUsed: "0x3cae4",
          to: callee,
          input: word(5n),
          error: "out of gas: write protection",
          type: "STATICCALL",
        },
      ],
      value: "0x0",
      type: "CALL",
    });
    const top = await trace({ tracer: "callTracer", tracerConfig: { onlyTopCall: true } });
    assert.equal((top as { calls?: unknown }).calls, undefined);
    assert.equal((top as { gasUsed: string }).gasUsed, "0x4847f");
  });

  test("prestateTracer: the accounts and slot as eth_getBalance & co. read them at the parent", async () => {
    const parent = `0x${(Number(receipt.blockNumber) - 1).toString(16)}`;
    const pre = (await trace({ tracer: "prestateTracer" })) as Record<
      string,
      { balance: string; nonce?: number; code?: string; storage?: Record<string, string> }
    >;
    assert.deepEqual(
      Object.keys(pre).sort(),
      ["0x4200000000000000000000000000000000000011", from, caller, callee].sort(),
    );
    for (const [address, account] of Object.entries(pre)) {
      assert.equal(
        account.balance,
        await call(node.dedicatedUrl, "eth_getBalance", [address, parent]),
      );
      const nonce = await call(node.dedicatedUrl, "eth_getTransactionCount", [address, parent]);
      assert.equal(account.nonce ?? 0, Number(nonce));
      assert.equal(
        account.code ?? "0x",
        await call(node.dedicatedUrl, "eth_getCode", [address, parent]),
      );
      for (const [slot, value] of Object.entries(account.storage ?? {})) {
        assert.equal(
          value,
          await call(node.dedicatedUrl, "eth_getStorageAt", [address, slot, parent]),
        );
      }
    }
    assert.deepEqual(pre[callee]!.storage, { [word(0n)]: word(0n) });
    const diff = (await trace({ tracer: "prestateTracer", tracerConfig: { diffMode: true } })) as {
      post: Record<string, { storage?: Record<string, string>; nonce?: number }>;
      pre: Record<string, unknown>;
    };
    const slot = await call(node.dedicatedUrl, "eth_getStorageAt", [
      callee,
      word(0n),
      receipt.blockNumber,
    ]);
    assert.deepEqual(diff.post[callee], { storage: { [word(0n)]: slot } });
    assert.equal(slot, word(5n));
    assert.equal(
      diff.post[from]?.nonce,
      Number(await call(node.dedicatedUrl, "eth_getTransactionCount", [from, receipt.blockNumber])),
    );
    // The caller did not change: in neither side.
    assert.equal(diff.pre[caller], undefined);
  });

  test("errors as geth words them", async () => {
    assert.deepEqual(await traceError([word(1n)]), {
      code: -32000,
      message: "transaction not found",
    });
    assert.deepEqual(await traceError([receipt.transactionHash, { tracer: "fooTracer" }]), {
      code: -32000,
      message: "ReferenceError: fooTracer is not defined at <eval>:1:2(0)",
    });
    assert.deepEqual(await traceError([receipt.transactionHash, { timeout: "abc" }]), {
      code: -32000,
      message: 'time: invalid duration "abc"',
    });
    assert.deepEqual(await traceError([receipt.transactionHash, { timeout: "0s" }]), {
      code: -32000,
      message: "execution timeout",
    });
    assert.deepEqual(await traceError([receipt.transactionHash, { enableMemory: "yes" }]), {
      code: -32602,
      message:
        "invalid argument 1: json: cannot unmarshal string into Go struct field TraceConfig.EnableMemory of type bool",
    });
    assert.deepEqual(
      await traceError([
        receipt.transactionHash,
        { tracer: "callTracer", tracerConfig: { onlyTopCall: 1 } },
      ]),
      {
        code: -32000,
        message:
          "json: cannot unmarshal number into Go struct field callTracerConfig.onlyTopCall of type bool",
      },
    );
    // Only sealed transactions are traced (a pre-confirmed one is not found, as in geth).
    const pending = await devSender(node, 2).send({ to: caller, data: calleeWord(callee) });
    assert.deepEqual(await traceError([pending.transactionHash]), {
      code: -32000,
      message: "transaction not found",
    });
  });
});
