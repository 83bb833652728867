// Typed method definitions: each positional parameter has a parser run at the edge, so
// handlers receive parsed values (bigint, Uint8Array, selectors), never raw JSON.

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

export type ParamSpec<T> = { readonly parse: Parser<T>; readonly optional: boolean };

/** A parameter that must be present (JSON null is handed to the parser, as geth does). */
export function required<T>(parse: Parser<T>): ParamSpec<T> {
  return { parse, optional: false };
}

/** A geth pointer argument: missing or JSON null → undefined. */
export function optional<T>(parse: Parser<T>): ParamSpec<T | undefined> {
  return { parse, optional: true };
}

/** The handler's argument tuple for a parameter list. */
export type ParamValues<P extends readonly ParamSpec<unknown>[]> = {
  -readonly [K in keyof P]: P[K] extends ParamSpec<infer T> ? T : never;
};

/**
 * A registered method. The handler returns a JSON-serializable value (hex strings, not
 * bigint), a RawJson or a RawJsonBytes; it may throw RpcError subclasses or plain Errors (-32000).
 */
export type MethodDef = {
  readonly params: readonly ParamSpec<unknown>[];
  readonly handler: (args: readonly unknown[], ctx: RequestContext) => unknown;
};

export type MethodRegistry = Readonly<Record<string, MethodDef>>;

export function defineMethod<const P extends readonly ParamSpec<unknown>[]>(def: {
  readonly params: P;
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
