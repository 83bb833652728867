import assert from "node:assert/strict";
import { test } from "node:test";
import { DEFAULT_TRACE_OPTIONS, parseTraceCallConfig, parseTraceConfig } from "./traceConfig.ts";

test("TraceConfig: Go's decoding (folded keys, null fields, typed errors)", () => {
  assert.deepEqual(parseTraceConfig(null), DEFAULT_TRACE_OPTIONS);
  assert.deepEqual(
    parseTraceConfig({
      ENABLEMEMORY: true,
      disableStack: null,
      limit: 7,
      tracer: "callTracer",
      tracerConfig: { onlyTopCall: true },
      timeout: "1s",
      overrides: {},
      unknown: 1,
    }),
    {
      ...DEFAULT_TRACE_OPTIONS,
      enableMemory: true,
      limit: 7,
      tracer: "callTracer",
      tracerConfig: { onlyTopCall: true },
      timeout: "1s",
    },
  );
  const error = (raw: unknown) => {
    try {
      parseTraceConfig(raw);
    } catch (e) {
      return (e as Error).message;
    }
    return undefined;
  };
  assert.equal(
    error("callTracer"),
    "json: cannot unmarshal string into Go value of type tracers.TraceConfig",
  );
  assert.equal(
    error({ disableStorage: 1 }),
    "json: cannot unmarshal number into Go struct field TraceConfig.DisableStorage of type bool",
  );
  assert.equal(
    error({ limit: 1.5 }),
    "json: cannot unmarshal number 1.5 into Go struct field TraceConfig.Limit of type int",
  );
  assert.equal(
    error({ tracer: 5 }),
    "json: cannot unmarshal number into Go struct field TraceConfig.Tracer of type string",
  );
});

test("TraceCallConfig: txIndex as hexutil.Uint, overrides noticed", () => {
  assert.deepEqual(parseTraceCallConfig({ txIndex: "0x2", tracer: "prestateTracer" }), {
    trace: { ...DEFAULT_TRACE_OPTIONS, tracer: "prestateTracer" },
    txIndex: 2,
    overrides: false,
  });
  assert.equal(parseTraceCallConfig({ blockOverrides: { number: "0x1" } }).overrides, true);
  assert.throws(() => parseTraceCallConfig({ txIndex: 2 }), {
    message:
      "json: cannot unmarshal non-string into Go struct field TraceCallConfig.TxIndex of type hexutil.Uint",
  });
  assert.throws(
    () => parseTraceCallConfig([]),
    /cannot unmarshal array into Go value of type tracers.TraceCallConfig/,
  );
});
