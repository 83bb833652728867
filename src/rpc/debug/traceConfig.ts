// geth's TraceConfig and TraceCallConfig (eth/tracers/api.go) as Go's encoding/json reads
// them: keys match case-insensitively, null leaves a field alone, a wrong type is an error
// naming the field. The tracer, its config and the timeout are checked where the trace runs,
// as geth checks them only when a transaction is traced.

import type { TraceOptions } from "../../services/calls.ts";
import { InvalidParamsError } from "../../services/errors.ts";
import { parseUint } from "../params.ts";

export type TraceCallOptions = {
  readonly trace: TraceOptions;
  readonly txIndex: number | undefined;
  /** State or block overrides were given (not served). */
  readonly overrides: boolean;
};

export const DEFAULT_TRACE_OPTIONS: TraceOptions = {
  tracer: undefined,
  enableMemory: false,
  disableStack: false,
  disableStorage: false,
  enableReturnData: false,
  limit: 0,
  tracerConfig: undefined,
  timeout: undefined,
};

function kind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (typeof v === "boolean") return "bool";
  return typeof v;
}

type Fields = Map<string, unknown>;

/** The object's fields by folded key (the last of equal keys wins, as in Go). */
function fields(raw: unknown, goType: string): Fields | undefined {
  if (raw === null) return undefined;
  if (typeof raw !== "object" || Array.isArray(raw)) {
    throw new InvalidParamsError(
      `json: cannot unmarshal ${kind(raw)} into Go value of type tracers.${goType}`,
    );
  }
  const out: Fields = new Map();
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    out.set(key.toLowerCase(), value);
  }
  return out;
}

function typeError(value: unknown, struct: string, field: string, goType: string) {
  // Go quotes the number only when it failed to parse as the integer field.
  const v = typeof value === "number" && goType === "int" ? `number ${value}` : kind(value);
  return new InvalidParamsError(
    `json: cannot unmarshal ${v} into Go struct field ${struct}.${field} of type ${goType}`,
  );
}

function read<T>(
  f: Fields,
  struct: string,
  field: string,
  goType: string,
  accept: (v: unknown) => v is T,
): T | undefined {
  const value = f.get(field.toLowerCase());
  if (value === undefined || value === null) return undefined;
  if (!accept(value)) throw typeError(value, struct, field, goType);
  return value;
}

const isBool = (v: unknown): v is boolean => typeof v === "boolean";
const isString = (v: unknown): v is string => typeof v === "string";
const isInt = (v: unknown): v is number =>
  typeof v === "number" && Number.isSafeInteger(v) && !Object.is(v, -0);

function traceOptions(f: Fields, struct: string): TraceOptions {
  const bool = (field: string) => read(f, struct, field, "bool", isBool) ?? false;
  const tracerConfig = f.get("tracerconfig");
  return {
    enableMemory: bool("EnableMemory"),
    disableStack: bool("DisableStack"),
    disableStorage: bool("DisableStorage"),
    enableReturnData: bool("EnableReturnData"),
    limit: read(f, struct, "Limit", "int", isInt) ?? 0,
    tracer: read(f, struct, "Tracer", "string", isString),
    timeout: read(f, struct, "Timeout", "string", isString),
    tracerConfig,
  };
}

/** debug_traceTransaction's and debug_traceBlock*'s config (absent or null: the defaults). */
export function parseTraceConfig(raw: unknown): TraceOptions {
  const f = fields(raw, "TraceConfig");
  return f === undefined ? DEFAULT_TRACE_OPTIONS : traceOptions(f, "TraceConfig");
}

/** debug_traceCall's config: a trace config plus overrides and a transaction index. */
export function parseTraceCallConfig(raw: unknown): TraceCallOptions {
  const f = fields(raw, "TraceCallConfig");
  if (f === undefined)
    return { trace: DEFAULT_TRACE_OPTIONS, txIndex: undefined, overrides: false };
  const trace = traceOptions(f, "TraceCallConfig");
  const rawIndex = f.get("txindex");
  let txIndex: number | undefined;
  if (rawIndex !== undefined && rawIndex !== null) {
    try {
      txIndex = Number(parseUint(rawIndex));
    } catch (e) {
      throw new InvalidParamsError(
        (e as Error).message.replace(
          "into Go value of type",
          "into Go struct field TraceCallConfig.TxIndex of type",
        ),
      );
    }
  }
  const given = (key: string) => f.get(key) !== undefined && f.get(key) !== null;
  return { trace, txIndex, overrides: given("stateoverrides") || given("blockoverrides") };
}
