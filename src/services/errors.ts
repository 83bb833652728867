// JSON-RPC error classes with geth's codes and texts (rpc/errors.go), and the single
// error → wire-object mapping. They sit below rpc/ and exec/: either may throw them.

import { ERROR_REACH, FlashnodeError, RpcError, unreachable } from "../util/errors.ts";

export type RpcErrorObject = { code: number; message: string; data?: unknown };

export { RpcError };

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

/**
 * The one error → wire mapping, by the error's code (util/errors.ts ERROR_REACH): an RpcError
 * as it carries itself, any other error -32000 with its message, a thrown non-Error -32603.
 */
export function toRpcError(e: unknown): RpcErrorObject {
  // A thrown non-Error is a bug, the analogue of a Go panic.
  if (!(e instanceof Error)) return { code: InternalError.code, message: "method handler crashed" };
  // A library's or the system's error: geth's default code for plain errors.
  if (!(e instanceof FlashnodeError)) return { code: ServerError.code, message: e.message };
  const reach = ERROR_REACH[e.code];
  switch (reach) {
    case "rpc":
      // Only an RpcError has an "rpc" code; another class with one is answered as a plain error.
      if (!(e instanceof RpcError)) return { code: ServerError.code, message: e.message };
      return e.data === undefined
        ? { code: e.rpcCode, message: e.message }
        : { code: e.rpcCode, message: e.message, data: e.data };
    case "operator":
    case "internal":
      return { code: ServerError.code, message: e.message };
    default:
      return unreachable(reach);
  }
}
