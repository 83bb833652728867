// Typed method definitions: each positional parameter has a parser run at the edge, so
// handlers receive parsed values (bigint, Uint8Array, selectors), never raw JSON. A parameter
// whose parser names blocks says so (params.ts BlockParser): the policy reads it from here.

import type { BlockSelector } from "../services/blockSelector.ts";
import { type BlockParser, LATEST } from "./params.ts";

/** One call of a request, as the admission check sees it (before anything runs). */
export type CallSummary = { readonly method: string; readonly params: unknown };

/** A request refused whole at the edge: HTTP status, JSON-RPC error, extra headers. */
export type Refusal = {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers?: Readonly<Record<string, string>>;
};

export type RequestContext = {
  readonly tier: "public" | "dedicated";
  /** The client's address (rate limits, logs). */
  readonly client?: string;
  /** The API key of a dedicated endpoint. */
  readonly apiKey?: string;
  /** Policy and rate limits: every call of a request is shown here before any runs. */
  readonly admit?: (calls: readonly CallSummary[]) => Refusal | undefined;
};

export type Parser<T> = (raw: unknown) => T;

export type ParamSpec<T> = {
  readonly parse: Parser<T>;
  readonly optional: boolean;
  /** What the handler gets for an optional parameter left out or JSON null. */
  readonly absent?: T;
  /**
   * Set when `parse` names blocks: the blocks the parameter names in a call, read from its raw
   * value by `parse` itself; undefined when `parse` refuses it (the call fails when it runs).
   */
  readonly blocks?: (raw: unknown) => readonly BlockSelector[] | undefined;
};

/** The blocks a raw value names, through the parser the handler's argument comes from. */
function blocksThrough<T>(
  parse: Parser<T> | BlockParser<T>,
  optional: boolean,
  absent: T | undefined,
): ParamSpec<T>["blocks"] {
  if (!("blocks" in parse)) return undefined;
  // Left out: the method's own value for it, or latest (resolveBlock's reading of no selector).
  const whenAbsent = absent === undefined ? [LATEST] : parse.blocks(absent);
  return (raw) => {
    if (raw === undefined || (optional && raw === null)) return optional ? whenAbsent : undefined;
    let value: T;
    try {
      value = parse(raw);
    } catch {
      return undefined;
    }
    return parse.blocks(value);
  };
}

/** A parameter that must be present (JSON null is handed to the parser, as geth does). */
export function required<T>(parse: Parser<T> | BlockParser<T>): ParamSpec<T> {
  const blocks = blocksThrough(parse, false, undefined);
  return blocks === undefined ? { parse, optional: false } : { parse, optional: false, blocks };
}

/**
 * A geth pointer argument: missing or JSON null → `absent` (undefined unless given; a block
 * parameter left out is latest unless `absent` says otherwise).
 */
export function optional<T>(parse: Parser<T> | BlockParser<T>): ParamSpec<T | undefined>;
export function optional<T>(parse: Parser<T> | BlockParser<T>, absent: T): ParamSpec<T>;
export function optional<T>(
  parse: Parser<T> | BlockParser<T>,
  absent?: T,
): ParamSpec<T | undefined> {
  const blocks = blocksThrough(parse, true, absent);
  return {
    parse,
    optional: true,
    ...(absent === undefined ? {} : { absent }),
    ...(blocks === undefined ? {} : { blocks }),
  };
}

/** The handler's argument tuple for a parameter list. */
export type ParamValues<P extends readonly ParamSpec<unknown>[]> = {
  -readonly [K in keyof P]: P[K] extends ParamSpec<infer T> ? T : never;
};

/**
 * How a method reaches its data, which decides where a forked or following chain answers it
 * (rpc/fork/pastRoutes.ts, placed by resolveBlock.ts `placeBlock`). The block is the one its
 * block parameter names (the parameter whose parser names blocks, `ParamSpec.blocks`):
 * - `state`: the state after that block (a fork's state below F is the upstream's);
 * - `block`: that block's contents (at or below F: the upstream's);
 * - `proof`: a proof of state at that block (the chain's trie holds only what it wrote: at or
 *   below F, the upstream's);
 * - `transaction`: a transaction by its hash, the first parameter (the chain's, else the
 *   upstream's);
 * - `logs`: the logs its filter parameter selects (a range across F is split);
 * - `ownBlocks`: the chain's own blocks only, whatever its block parameter says (the upstream's
 *   past is not asked).
 * A method that declares none reads no block's data.
 */
export type DataAccess = "state" | "block" | "proof" | "transaction" | "logs" | "ownBlocks";

/**
 * A registered method. The handler returns a JSON-serializable value (hex strings, not
 * bigint), a RawJson or a RawJsonBytes; it may throw RpcError subclasses or plain Errors (-32000).
 */
export type MethodDef = {
  readonly params: readonly ParamSpec<unknown>[];
  readonly reads?: DataAccess;
  /** `raw`: the call's parameters as sent (what a fork forwards to its upstream). */
  readonly handler: (args: readonly unknown[], ctx: RequestContext, raw?: unknown) => unknown;
};

export type MethodRegistry = Readonly<Record<string, MethodDef>>;

export type Handler = MethodDef["handler"];

/** The position of a method's block parameter (the first whose parser names blocks). */
export function blockParamAt(def: MethodDef): number | undefined {
  const at = def.params.findIndex((spec) => spec.blocks !== undefined);
  return at < 0 ? undefined : at;
}

/**
 * One step of a read path around a method's handler: given the method's name, its definition
 * and the handler it wraps, the handler that runs instead (`next` itself when it has nothing to
 * do for that method).
 */
export type MethodLayer = (name: string, def: MethodDef, next: Handler) => Handler;

/** The methods with each handler wrapped by the layers, the first outermost. */
export function layered(methods: MethodRegistry, layers: readonly MethodLayer[]): MethodRegistry {
  if (layers.length === 0) return methods;
  const out: Record<string, MethodDef> = {};
  for (const [name, def] of Object.entries(methods)) {
    let handler = def.handler;
    for (let i = layers.length - 1; i >= 0; i--) handler = layers[i]!(name, def, handler);
    out[name] = handler === def.handler ? def : { ...def, handler };
  }
  return out;
}

/** The blocks a call names; undefined when its method takes no block (or is not served). */
export type CallBlocks = (call: CallSummary) => readonly BlockSelector[] | undefined;

/**
 * Reads the blocks of calls to a registry's methods from their parameter declarations, before
 * anything runs (the edge's policy). A call with several (eth_getLogs' fromBlock and toBlock)
 * names each; a value its parser refuses names none.
 */
export function callBlocks(methods: MethodRegistry): CallBlocks {
  // A Map (no "toString" from Object.prototype), of the methods that take a block at all.
  const readers = new Map<string, (params: unknown) => readonly BlockSelector[]>();
  for (const [name, def] of Object.entries(methods)) {
    const specs = def.params.flatMap((spec, i) =>
      spec.blocks === undefined ? [] : [{ i, blocks: spec.blocks }],
    );
    if (specs.length === 0) continue;
    readers.set(name, (params) => {
      const out: BlockSelector[] = [];
      if (params !== undefined && params !== null && !Array.isArray(params)) return out;
      for (const { i, blocks } of specs) out.push(...(blocks(params?.[i]) ?? []));
      return out;
    });
  }
  return (call) => readers.get(call.method)?.(call.params);
}

export function defineMethod<const P extends readonly ParamSpec<unknown>[]>(def: {
  readonly params: P;
  readonly reads?: DataAccess;
  readonly handler: (args: ParamValues<P>, ctx: RequestContext) => unknown;
}): MethodDef {
  // The dispatcher builds `args` from `params`, so the tuple type holds at runtime.
  return def as unknown as MethodDef;
}

/** A result already serialized as JSON, spliced into the response as is (fast path). */
export class RawJson {
  readonly json: string;
  constructor(json: string) {
    this.json = json;
  }
}

/**
 * A result serialized as JSON and kept as UTF-8 bytes (a cached large result): written to the
 * socket as it is, never joined into a response string (see splicedBody.ts).
 */
export class RawJsonBytes {
  readonly bytes: Buffer;
  constructor(bytes: Buffer) {
    this.bytes = bytes;
  }
}
