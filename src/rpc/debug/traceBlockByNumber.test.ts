import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { fixtureServer } from "../../../test/utils/archiveServer.ts";
import { startTestDevNode } from "../../../test/utils/devChain.ts";
import { call, callError } from "../../../test/utils/fixtures.ts";
import { deployTraceContracts } from "../../../test/utils/traceContracts.ts";
import type { RunningNode as RunningServer } from "../../node/plan.ts";

let server: RunningServer;
let url: string;
const hex = (n: number) => `0x${n.toString(16)}`;

type Receipt = {
  gasUsed: string;
  status: string;
  logs: Array<{ address: string; data: string; logIndex: string }>;
};
type CallFrame = {
  gasUsed: string;
  error?: string;
  calls?: CallFrame[];
  logs?: Array<{ address: string; data: string; index: string }>;
};
type Account = { balance: string; nonce?: number; code?: string; storage?: Record<string, string> };

before(async () => {
  server = await fixtureServer("trace-block");
  url = server.dedicatedUrl;
});
after(async () => {
  await server?.close();
});

const traceError = (params: unknown[]) => callError(url, "debug_traceBlockByNumber", params);

describe("debug_traceBlockByNumber on the fixture chain (served by `serve`)", () => {
  test("every block: each transaction's gas, failure and logs as its receipt has them", async () => {
    const head = Number(await call(url, "eth_blockNumber"));
    for (let n = 1; n <= head; n++) {
      const receipts = (await call(url, "eth_getBlockReceipts", [hex(n)])) as Receipt[];
      const logs = (await call(url, "debug_traceBlockByNumber", [
        hex(n),
        { disableStack: true },
      ])) as Array<{ result: { gas: number; failed: boolean } }>;
      const calls = (await call(url, "debug_traceBlockByNumber", [
        hex(n),
        { tracer: "callTracer", tracerConfig: { withLog: true } },
      ])) as Array<{ txHash: string; result: CallFrame }>;
      assert.equal(logs.length, receipts.length, `block ${n}`);
      receipts.forEach((r, i) => {
        const failed = r.status === "0x0";
        assert.deepEqual(logs[i]?.result.gas, Number(r.gasUsed), `block ${n} tx ${i} gas`);
        assert.equal(logs[i]?.result.failed, failed, `block ${n} tx ${i} failed`);
        const frame = calls[i]!.result;
        assert.equal(frame.gasUsed, r.gasUsed, `block ${n} tx ${i} callTracer gasUsed`);
        assert.equal(frame.error !== undefined, failed, `block ${n} tx ${i} callTracer error`);
        const traced: string[] = [];
        const walk = (f: CallFrame) => {
          for (const l of f.logs ?? []) traced.push(`${l.address} ${l.data} ${l.index}`);
          for (const c of f.calls ?? []) walk(c);
        };
        walk(frame);
        assert.deepEqual(
          traced.sort(),
          r.logs.map((l) => `${l.address} ${l.data} ${l.logIndex}`).sort(),
          `block ${n} tx ${i} logs`,
        );
      });
    }
  });

  test("prestateTracer: a block's first transaction starts from its parent's state", async () => {
    let checked = 0;
    for (const n of [2, 10, 20, 30, 40, 50]) {
      const parent = hex(n - 1);
      const traces = (await call(url, "debug_traceBlockByNumber", [
        hex(n),
        { tracer: "prestateTracer" },
      ])) as Array<{ result: Record<string, Account> }>;
      const first = traces[0]?.result;
      if (first === undefined) continue;
      for (const [address, account] of Object.entries(first)) {
        assert.equal(account.balance, await call(url, "eth_getBalance", [address, parent]));
        const nonce = await call(url, "eth_getTransactionCount", [address, parent]);
        assert.equal(account.nonce ?? 0, Number(nonce));
        assert.equal(account.code ?? "0x", await call(url, "eth_getCode", [address, parent]));
        for (const [slot, value] of Object.entries(account.storage ?? {})) {
          assert.equal(value, await call(url, "eth_getStorageAt", [address, slot, parent]));
          checked++;
        }
      }
    }
    assert.ok(checked > 0, "some slots were compared");
  });

  test("errors as geth words them", async () => {
    assert.deepEqual(await traceError(["0x0"]), {
      code: -32000,
      message: "genesis is not traceable",
    });
    assert.deepEqual(await traceError(["earliest"]), {
      code: -32000,
      message: "genesis is not traceable",
    });
    assert.deepEqual(await traceError(["0x99"]), { code: -32000, message: "block #153 not found" });
    assert.deepEqual(await traceError(["3"]), {
      code: -32602,
      message: "invalid argument 0: hex string without 0x prefix",
    });
    assert.deepEqual(await traceError(["0x1", "callTracer"]), {
      code: -32602,
      message:
        "invalid argument 1: json: cannot unmarshal string into Go value of type tracers.TraceConfig",
    });
    assert.deepEqual(
      await traceError([
        "0x1",
        { tracer: "prestateTracer", tracerConfig: { diffMode: true, includeEmpty: true } },
      ]),
      {
        code: -32000,
        message: "cannot use diffMode with includeEmpty",
      },
    );
  });
});

test("debug_traceBlockByNumber(pending): the pre-confirmed block, as it traces once sealed", async () => {
  const node = await startTestDevNode({ blockTimeMs: 600_000, flashblockIntervalMs: 50 });
  try {
    const sent = await (await deployTraceContracts(node)).runCaller();
    const config = { tracer: "callTracer", tracerConfig: { withLog: true } };
    const pending = (await call(node.dedicatedUrl, "debug_traceBlockByNumber", [
      "pending",
      config,
    ])) as Array<{ txHash: string }>;
    assert.deepEqual(pending.map((t) => t.txHash).at(-1), sent.transactionHash);
    await call(node.dedicatedUrl, "evm_mine");
    assert.deepEqual(
      await call(node.dedicatedUrl, "debug_traceBlockByNumber", [sent.blockNumber, config]),
      pending,
    );
  } finally {
    await node.close();
  }
});
