// geth's tracer directory: the struct logger by default, native tracers by name. geth treats
// any other name as JavaScript tracer code; this node runs none, and answers a bare unknown
// name as geth's JavaScript engine does.
import type { TraceOptions } from "../../services/calls.ts";
import { FlashnodeError } from "../../util/errors.ts";
import { CallTracer } from "./callTracer.ts";
import { DurationError, parseGoDuration } from "./goDuration.ts";
import { type PrestateRules, PrestateTracer } from "./prestateTracer.ts";
import { StructLogger } from "./structLogger.ts";
import type { Tracer } from "./types.ts";

/** A trace that cannot start (tracer, its config, the timeout): geth's -32000 errors. */
export class TraceSetupError extends FlashnodeError {
  readonly code = "TRACE_SETUP";
}

/** geth's defaultTraceTimeout. */
const DEFAULT_TIMEOUT_MS = 5000;

/** geth's other tracers, native and JavaScript: known, not served here. */
const UNSERVED = new Set([
  "4byteTracer",
  "flatCallTracer",
  "muxTracer",
  "erc7562Tracer",
  "bigramTracer",
  "evmdisTracer",
  "opcountTracer",
  "trigramTracer",
  "unigramTracer",
  "callTracerLegacy",
  "prestateTracerLegacy",
  "4byteTracerLegacy",
  "noopTracerLegacy",
]);

/** JavaScript globals: geth's engine evaluates them, then finds no tracer in them. */
const JS_GLOBALS = new Set([
  "Object",
  "Array",
  "Math",
  "JSON",
  "String",
  "Number",
  "Boolean",
  "Date",
  "RegExp",
  "Error",
  "Function",
  "Symbol",
  "undefined",
  "NaN",
  "Infinity",
]);

type Kind = "string" | "number" | "bool" | "array" | "object" | "null";

function kindOf(v: unknown): Kind {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  if (typeof v === "number") return "number";
  return typeof v === "string" ? "string" : "object";
}

/** Go's json.Unmarshal of `raw` into a struct of bool fields (keys match case-insensitively). */
function boolFields<K extends string>(
  raw: unknown,
  fields: readonly K[],
  goType: string,
): Record<K, boolean> {
  const out = Object.fromEntries(fields.map((f) => [f, false])) as Record<K, boolean>;
  if (raw === undefined || raw === null) return out;
  if (kindOf(raw) !== "object") {
    throw new TraceSetupError(
      `json: cannot unmarshal ${kindOf(raw)} into Go value of type native.${goType}`,
    );
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const field = fields.find((f) => f.toLowerCase() === key.toLowerCase());
    if (field === undefined || value === null) continue;
    if (typeof value !== "boolean") {
      throw new TraceSetupError(
        `json: cannot unmarshal ${kindOf(value)} into Go struct field ${goType}.${field} of type bool`,
      );
    }
    out[field] = value;
  }
  return out;
}

export type TracerContext = {
  readonly prestate: PrestateRules;
  /** Logs the block's earlier transactions emitted (the callTracer's log index). */
  readonly logsBefore: number;
};

/** The tracer `options` name, for one transaction. */
export function createTracer(options: TraceOptions, ctx: TracerContext): Tracer {
  const name = options.tracer;
  if (name === undefined) {
    return new StructLogger({
      enableMemory: options.enableMemory,
      disableStack: options.disableStack,
      disableStorage: options.disableStorage,
      enableReturnData: options.enableReturnData,
      limit: options.limit,
    });
  }
  switch (name) {
    case "callTracer":
      return new CallTracer(
        boolFields(options.tracerConfig, ["onlyTopCall", "withLog"], "callTracerConfig"),
        ctx.logsBefore,
      );
    case "prestateTracer": {
      const config = boolFields(
        options.tracerConfig,
        ["diffMode", "disableCode", "disableStorage", "includeEmpty"],
        "PrestateTracerConfig",
      );
      if (config.diffMode && config.includeEmpty)
        throw new TraceSetupError("cannot use diffMode with includeEmpty");
      return new PrestateTracer(config, ctx.prestate);
    }
    case "noopTracer":
      return { result: () => "{}" };
  }
  if (UNSERVED.has(name)) throw new TraceSetupError(`tracer ${name} is not served by this node`);
  if (/^[A-Za-z_$][\w$]*$/.test(name)) {
    if (JS_GLOBALS.has(name))
      throw new TraceSetupError("trace object must expose a function result()");
    throw new TraceSetupError(`ReferenceError: ${name} is not defined at <eval>:1:2(0)`);
  }
  throw new TraceSetupError("JavaScript tracers are not served by this node");
}

/** The trace's deadline (ms since the epoch): geth's `timeout`, 5 s by default. */
export function traceDeadline(options: TraceOptions, now: number): number {
  if (options.timeout === undefined) return now + DEFAULT_TIMEOUT_MS;
  let ms: number;
  try {
    ms = parseGoDuration(options.timeout);
  } catch (e) {
    if (e instanceof DurationError) throw new TraceSetupError(e.message);
    throw e;
  }
  // geth stops a trace whose timeout is not positive at once.
  return ms <= 0 ? 0 : now + ms;
}
