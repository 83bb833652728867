// JSON-RPC error classes with geth's codes and texts (rpc/errors.go), and the single
// error → wire-object mapping. They sit below rpc/ and exec/: either may throw them.

export type RpcErrorObject = { code: number; message: string; data?: unknown };

export class RpcError extends Error {
  readonly code: number;
  declare readonly data?: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    // Only set when given: hive compares `data`, so it must not appear by accident.
    if (data !== undefined) this.data = data;
  }
}

export class ParseError extends RpcError {
  static readonly code: number = -32700;
  constructor(message = "parse error") {
    super(ParseError.code, message);
  }
}

export class InvalidRequestError extends RpcError {
  static readonly code: number = -32600;
  constructor(message = "invalid request") {
    super(InvalidRequestError.code, message);
  }
}

export class MethodNotFoundError extends RpcError {
  static readonly code: number = -32601;
  constructor(method: string) {
    super(MethodNotFoundError.code, `the method ${method} does not exist/is not available`);
  }
}

export class InvalidParamsError extends RpcError {
  static readonly code: number = -32602;
  constructor(message: string, data?: unknown) {
    super(InvalidParamsError.code, message, data);
  }
}

/** geth uses -32603 for a crashed handler and for results that fail to serialize. */
export class InternalError extends RpcError {
  static readonly code: number = -32603;
  constructor(message = "method handler crashed", data?: unknown) {
    super(InternalError.code, message, data);
  }
}

/** geth's default code for plain errors (e.g. "header not found"). */
export class ServerError extends RpcError {
  static readonly code: number = -32000;
  constructor(message: string, data?: unknown) {
    super(ServerError.code, message, data);
  }
}

/**
 * geth's clientLimitExceededError (eth_simulateV1's block and call limits, eth_getStorageValues'
 * slots).
 */
export class ClientLimitExceededError extends RpcError {
  static readonly code: number = -38026;
  constructor(message: string) {
    super(ClientLimitExceededError.code, message);
  }
}

export class RequestTimeoutError extends RpcError {
  static readonly code: number = -32002;
  constructor() {
    super(RequestTimeoutError.code, "request timed out");
  }
}

export class ResponseTooLargeError extends RpcError {
  static readonly code: number = -32003;
  constructor() {
    super(ResponseTooLargeError.code, "response too large");
  }
}

/** The one error → wire mapping: RpcError as is, any other Error -32000, anything else -32603. */
export function toRpcError(e: unknown): RpcErrorObject {
  if (e instanceof RpcError) {
    return e.data === undefined
      ? { code: e.code, message: e.message }
      : { code: e.code, message: e.message, data: e.data };
  }
  // An error that carries its JSON-RPC code (a call's failure, a dev request's refusal, either
  // as thrown or as it crossed a thread or process channel).
  const rpcCode = (e as { rpcCode?: unknown } | null)?.rpcCode;
  if (e instanceof Error && typeof rpcCode === "number") {
    const data = (e as { data?: unknown }).data;
    return data === undefined
      ? { code: rpcCode, message: e.message }
      : { code: rpcCode, message: e.message, data };
  }
  if (e instanceof Error) return { code: ServerError.code, message: e.message };
  // A thrown non-Error is a bug, the analogue of a Go panic.
  return { code: InternalError.code, message: "method handler crashed" };
}
