import assert from "node:assert/strict";
import { test } from "node:test";
import { InvalidParamsError, RpcError } from "../../services/errors.ts";
import { bytesToHex } from "../../util/hex.ts";
import { parseSimulateOptions } from "./simulateParams.ts";
import { checkSimulateLimits } from "./simulateV1.ts";

const A = "0xc000000000000000000000000000000000000000";
const B = "0xc100000000000000000000000000000000000000";

function fails(raw: unknown, message: string): void {
  assert.throws(
    () => parseSimulateOptions(raw),
    (e: unknown) => e instanceof InvalidParamsError && e.message === message,
  );
}

test("simOpts: keys match case-insensitively, null fields are unset, flags default to false", () => {
  const req = parseSimulateOptions({
    BlockStateCalls: [
      {
        blockOverrides: { Number: "0x40", time: "0x10", FEERECIPIENT: B, withdrawals: [{}] },
        stateOverrides: {
          [A]: {
            balance: "0x3e8",
            stateDiff: { [`0x${"00".repeat(31)}01`]: `0x${"00".repeat(31)}02` },
          },
        },
        calls: [{ from: A, to: B, value: "0x1", input: "0x12", chainId: "0x1", nonce: null }],
      },
      null,
    ],
    traceTransfers: true,
    ReturnFullTransactions: null,
  });
  assert.equal(req.blocks.length, 2);
  assert.equal(req.traceTransfers, true);
  assert.equal(req.validation, false);
  assert.equal(req.returnFullTransactions, false);
  const [first, second] = req.blocks;
  assert.equal(first?.blockOverrides?.number, 0x40n);
  assert.equal(first?.blockOverrides?.time, 0x10n);
  assert.equal(bytesToHex(first?.blockOverrides?.feeRecipient ?? new Uint8Array()), B);
  assert.deepEqual(first?.blockOverrides?.withdrawals, [
    { index: 0n, validatorIndex: 0n, address: new Uint8Array(20), amount: 0n },
  ]);
  const [address, account] = first?.stateOverrides?.[0] ?? [];
  assert.equal(bytesToHex(address ?? new Uint8Array()), A);
  assert.equal(account?.balance, 1000n);
  assert.equal(account?.nonce, undefined);
  assert.equal(account?.stateDiff?.length, 1);
  const call = first?.calls[0];
  assert.equal(call?.value, 1n);
  assert.equal(call?.chainId, 1n);
  assert.equal(call?.nonce, undefined);
  assert.equal(bytesToHex(call?.data ?? new Uint8Array()), "0x12");
  assert.deepEqual(second, { blockOverrides: undefined, stateOverrides: undefined, calls: [] });
  assert.deepEqual(parseSimulateOptions(null).blocks, []);
});

test("simOpts: wrong types are encoding/json's errors, naming the struct field", () => {
  fails("x", "json: cannot unmarshal string into Go value of type ethapi.simOpts");
  fails(
    { blockStateCalls: {} },
    "json: cannot unmarshal object into Go struct field simOpts.blockStateCalls of type []ethapi.simBlock",
  );
  fails(
    { blockStateCalls: [], validation: "yes" },
    "json: cannot unmarshal string into Go struct field simOpts.validation of type bool",
  );
  fails(
    { blockStateCalls: [{ stateOverrides: { [A]: { balance: "0x01" } } }] },
    "json: cannot unmarshal hex number with leading zero digits into Go struct field OverrideAccount.blockStateCalls.stateOverrides.balance of type *hexutil.Big",
  );
  fails(
    { blockStateCalls: [{ blockOverrides: { time: 5 } }] },
    "json: cannot unmarshal non-string into Go struct field BlockOverrides.blockStateCalls.blockOverrides.Time of type hexutil.Uint64",
  );
  fails(
    { blockStateCalls: [{ calls: [{ from: "0x12" }] }] },
    "hex string has length 2, want 40 for common.Address",
  );
  // Map keys are decoded as text: their own messages.
  fails(
    { blockStateCalls: [{ stateOverrides: { "0x12": {} } }] },
    "hex string has length 2, want 40 for Address",
  );
  fails(
    {
      blockStateCalls: [{ stateOverrides: { [A]: { state: { "0x01": `0x${"00".repeat(32)}` } } } }],
    },
    "hex string has length 2, want 64 for Hash",
  );
});

test("limits: empty input, more than 256 blocks, 5000 calls a block, 10000 in all", () => {
  const codeOf = (f: () => void) => {
    try {
      f();
    } catch (e) {
      return [e instanceof RpcError ? e.rpcCode : e, (e as Error).message];
    }
    return undefined;
  };
  const blocks = (n: number, calls = 0) =>
    Array.from({ length: n }, () => ({
      blockOverrides: undefined,
      stateOverrides: undefined,
      calls: Array.from(
        { length: calls },
        () => parseSimulateOptions({ blockStateCalls: [{ calls: [{}] }] }).blocks[0]!.calls[0]!,
      ),
    }));
  const req = (b: ReturnType<typeof blocks>) => ({
    blocks: b,
    traceTransfers: false,
    validation: false,
    returnFullTransactions: false,
  });
  assert.deepEqual(
    codeOf(() => checkSimulateLimits(req([]))),
    [-32602, "empty input"],
  );
  assert.deepEqual(
    codeOf(() => checkSimulateLimits(req(blocks(257)))),
    [-38026, "too many blocks"],
  );
  assert.equal(
    codeOf(() => checkSimulateLimits(req(blocks(256)))),
    undefined,
  );
  assert.deepEqual(
    codeOf(() => checkSimulateLimits(req(blocks(1, 5001)))),
    [-38026, "too many calls in block: 5001 > 5000"],
  );
  assert.deepEqual(
    codeOf(() => checkSimulateLimits(req(blocks(3, 4000)))),
    [-38026, "too many calls: 12000 > 10000"],
  );
});
