// How the EVM library's events become geth's trace, for the cases where the two EVMs see an
// opcode differently. Each case runs as creation code through debug_traceCall on a dev chain.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { startTestDevNode } from "../../../test/utils/devChain.ts";
import { call } from "../../../test/utils/fixtures.ts";
import type { RunningNode as DevNode } from "../../node/plan.ts";

let node: DevNode;
let from: string;
type StructLog = { pc: number; op: string; gas: number; gasCost: number; error?: string };
type Logs = { gas: number; failed: boolean; returnValue: string; structLogs: StructLog[] };
type Frame = Record<string, unknown> & { calls?: Frame[] };

/** 50M (the default gas) less a creation's intrinsic gas for `code`. */
function executionGas(code: string): number {
  const bytes = Buffer.from(code.slice(2), "hex");
  const data = [...bytes].reduce((sum, b) => sum + (b === 0 ? 4 : 16), 0);
  return 50_000_000 - (53_000 + data + 2 * Math.ceil(bytes.length / 32));
}

const trace = (data: string, config: unknown, extra: Record<string, string> = {}) =>
  call(node.dedicatedUrl, "debug_traceCall", [{ from, data, ...extra }, "latest", config]);

before(async () => {
  node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  from = node.accounts[1]!.address.toLowerCase();
});
after(async () => {
  await node?.close();
});

describe("tracing: the library's events in geth's terms", () => {
  test("a stack underflow is reported with its opcode, which never ran", async () => {
    const logs = (await trace("0x01", {})) as Logs;
    assert.deepEqual(logs, {
      gas: 50_000_000,
      failed: true,
      returnValue: "0x",
      structLogs: [
        {
          pc: 0,
          op: "ADD",
          gas: executionGas("0x01"),
          gasCost: 3,
          depth: 1,
          error: "stack underflow (0 <=> 2)",
          stack: [],
        },
      ],
    });
    assert.deepEqual(await trace("0x01", { tracer: "callTracer" }), {
      from,
      gas: "0x2faf080",
      gasUsed: "0x2faf080",
      input: "0x01",
      error: "stack underflow (0 <=> 2)",
      value: "0x0",
      type: "CREATE",
    });
  });

  test("an undefined opcode is named by its byte; running off the code is a STOP", async () => {
    const bad = (await trace("0x5fef", {})) as Logs;
    assert.deepEqual(
      bad.structLogs.map((l) => [l.op, l.gasCost, l.error]),
      [
        ["PUSH0", 2, undefined],
        ["opcode 0xef not defined", 0, undefined],
      ],
    );
    const frame = (await trace("0x5fef", { tracer: "callTracer" })) as Frame;
    assert.equal(frame.error, "invalid opcode: opcode 0xef not defined");
    const ran = (await trace("0x6001", {})) as Logs;
    const gas = executionGas("0x6001");
    assert.deepEqual(ran.structLogs, [
      { pc: 0, op: "PUSH1", gas, gasCost: 3, depth: 1, stack: [] },
      { pc: 2, op: "STOP", gas: gas - 3, gasCost: 0, depth: 1, stack: ["0x1"] },
    ]);
    assert.equal(ran.failed, false);
  });

  test("a creation that cannot pay for its code, a read past the return data", async () => {
    // RETURN 256 bytes with 1,000 gas left: storing them would cost 51,200.
    const deposit = "0x6101006000f3";
    const logs = (await trace(deposit, {}, { gas: "0xd33a" })) as Logs;
    assert.equal(logs.failed, true);
    assert.equal(logs.structLogs.at(-1)?.op, "RETURN");
    assert.equal(logs.structLogs.at(-1)?.error, undefined);
    const frame = (await trace(deposit, { tracer: "callTracer" }, { gas: "0xd33a" })) as Frame;
    assert.equal(frame.error, "contract creation code storage out of gas");
    assert.equal(frame.to, undefined);
    // RETURNDATACOPY of 1 byte with no return data: geth charged 3 + 3 (copy) + 3 (memory).
    const copy = (await trace("0x6001600060003e", {})) as Logs;
    assert.deepEqual(copy.structLogs.at(-1), {
      pc: 6,
      op: "RETURNDATACOPY",
      gas: executionGas("0x6001600060003e") - 9,
      gasCost: 9,
      depth: 1,
      stack: ["0x1", "0x0", "0x0"],
    });
    const copyFrame = (await trace("0x6001600060003e", { tracer: "callTracer" })) as Frame;
    assert.equal(copyFrame.error, "return data out of bounds");
  });

  test("a self-destruct is a frame; a call that cannot pay its value fails without running", async () => {
    const destruct = (await trace("0x33ff", { tracer: "callTracer" }, { value: "0x5" })) as Frame;
    const created = destruct.to as string;
    assert.match(created, /^0x[0-9a-f]{40}$/);
    assert.deepEqual(destruct.calls, [
      {
        from: created,
        gas: "0x0",
        gasUsed: "0x0",
        to: from,
        input: "0x",
        value: "0x5",
        type: "SELFDESTRUCT",
      },
    ]);
    // CALL 0x1234 with more value than the creation holds.
    const code = "0x600060006000600069ffffffffffffffffffff6112345af100";
    const logs = (await trace(code, {})) as Logs;
    const callStep = logs.structLogs.find((l) => l.op === "CALL")!;
    const frame = (await trace(code, { tracer: "callTracer" })) as Frame;
    // The callee's gas: the CALL's cost less cold access, value transfer and new account, plus
    // the stipend.
    const gas = callStep.gasCost - 2600 - 9000 - 25000 + 2300;
    assert.deepEqual(frame.calls, [
      {
        from: frame.to,
        gas: `0x${gas.toString(16)}`,
        gasUsed: "0x0",
        to: "0x0000000000000000000000000000000000001234",
        input: "0x",
        error: "insufficient balance for transfer",
        value: "0xffffffffffffffffffff",
        type: "CALL",
      },
    ]);
  });
});
