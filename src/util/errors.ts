// The one error model. Every error the house throws is a FlashnodeError whose `code` is one of
// ErrorCode, and ERROR_REACH says, per code, how it reaches the operator and a JSON-RPC client.
// A code without a reach fails to compile; the CLI, the wire mapping (services/errors.ts
// toRpcError) and the channel (util/channel.ts) read the table, never an error's properties.

/** Every code of the house. A new error class adds its code here, and its reach below. */
export type ErrorCode =
  // JSON-RPC errors: they carry their own code and data (RpcError and its subclasses).
  | "RPC"
  | "CALL_FAILED"
  | "DEV_REQUEST"
  // The operator's to fix.
  | "USAGE"
  | "SYSTEM"
  | "WORKER_DIED"
  | "STOP_REQUESTED"
  | "PEER_GONE"
  | "DEADLINE"
  | "PRIMARY_GONE"
  | "PORT_UNAVAILABLE"
  | "POLICY_INVALID"
  | "DATADIR"
  | "DATADIR_UNAVAILABLE"
  | "SCHEMA_MISMATCH"
  | "FORK_DATADIR"
  | "FOLLOW_DATADIR"
  | "REPLICA_DATADIR"
  | "FORK_UPSTREAM_MISSING"
  | "FORK_POINT"
  | "FORK_GENESIS"
  | "GENESIS_INVALID"
  | "GENESIS_MISMATCH"
  | "CHAIN_START"
  | "CHAIN_FILE_INVALID"
  | "IMPORT_FAILED"
  | "STATE_FILE"
  | "BLOCK_JSON"
  | "HEADER_JSON"
  | "TRANSACTION_JSON"
  | "MALFORMED_RLP"
  | "DEPOSIT_DECODE"
  | "TYPED_DATA"
  | "NO_SIGNER"
  | "TX_BUILD"
  | "TX_REJECTED"
  | "EVM_TIMEOUT"
  | "BLOCK_REJECTED"
  | "UNSUPPORTED_STATE_OPERATION"
  | "UPSTREAM_UNAVAILABLE"
  | "UPSTREAM_RATE_LIMITED"
  | "UPSTREAM_PROTOCOL"
  | "UPSTREAM_NOT_ARCHIVE"
  | "UPSTREAM_CALL"
  | "FRAME_BROTLI"
  | "FRAME_JSON"
  | "FRAME_TOO_LARGE"
  | "FLASHBLOCK_SHAPE"
  | "FLASHBLOCK_REJECTED"
  | "REPLICA_NEEDS_SNAPSHOT"
  | "REPLICA_BLOCK_REFUSED"
  | "REPLICA_FORMAT"
  | "OTHER_CHAIN"
  | "SNAPSHOT_UNUSABLE"
  | "CANNOT_CONTINUE"
  | "NOT_WRITABLE"
  // Inside the node: caught and turned into another error where they are thrown, or a bug.
  | "INTERNAL"
  | "TRACE_STOPPED"
  | "TRACE_SETUP"
  | "DURATION"
  | "UPSTREAM_READ_NEEDED"
  | "FILTER_CRITERIA"
  | "CHAIN_MISMATCH";

/**
 * How an error reaches the operator and a JSON-RPC client:
 * - "rpc": an RpcError; the client gets the JSON-RPC code, message and data it carries; the CLI
 *   prints its message as one line.
 * - "operator": the operator's to fix (a flag, a datadir, a port, an upstream out of reach); the
 *   CLI prints one line; the client gets -32000 (geth's code for plain errors) and the message.
 * - "internal": a bug, or an error meant to be caught where it is thrown; the CLI prints the
 *   stack (a report needs it); the client gets -32000 and the message; the RPC server logs it.
 */
export type ErrorReach = "rpc" | "operator" | "internal";

export const ERROR_REACH: Record<ErrorCode, ErrorReach> = {
  RPC: "rpc",
  CALL_FAILED: "rpc",
  DEV_REQUEST: "rpc",
  USAGE: "operator",
  SYSTEM: "operator",
  WORKER_DIED: "operator",
  STOP_REQUESTED: "operator",
  PEER_GONE: "operator",
  DEADLINE: "operator",
  PRIMARY_GONE: "operator",
  PORT_UNAVAILABLE: "operator",
  POLICY_INVALID: "operator",
  DATADIR: "operator",
  DATADIR_UNAVAILABLE: "operator",
  SCHEMA_MISMATCH: "operator",
  FORK_DATADIR: "operator",
  FOLLOW_DATADIR: "operator",
  REPLICA_DATADIR: "operator",
  FORK_UPSTREAM_MISSING: "operator",
  FORK_POINT: "operator",
  FORK_GENESIS: "operator",
  GENESIS_INVALID: "operator",
  GENESIS_MISMATCH: "operator",
  CHAIN_START: "operator",
  CHAIN_FILE_INVALID: "operator",
  IMPORT_FAILED: "operator",
  STATE_FILE: "operator",
  BLOCK_JSON: "operator",
  HEADER_JSON: "operator",
  TRANSACTION_JSON: "operator",
  MALFORMED_RLP: "operator",
  DEPOSIT_DECODE: "operator",
  TYPED_DATA: "operator",
  NO_SIGNER: "operator",
  TX_BUILD: "operator",
  TX_REJECTED: "operator",
  EVM_TIMEOUT: "operator",
  BLOCK_REJECTED: "operator",
  UNSUPPORTED_STATE_OPERATION: "operator",
  UPSTREAM_UNAVAILABLE: "operator",
  UPSTREAM_RATE_LIMITED: "operator",
  UPSTREAM_PROTOCOL: "operator",
  UPSTREAM_NOT_ARCHIVE: "operator",
  UPSTREAM_CALL: "operator",
  FRAME_BROTLI: "operator",
  FRAME_JSON: "operator",
  FRAME_TOO_LARGE: "operator",
  FLASHBLOCK_SHAPE: "operator",
  FLASHBLOCK_REJECTED: "operator",
  REPLICA_NEEDS_SNAPSHOT: "operator",
  REPLICA_BLOCK_REFUSED: "operator",
  REPLICA_FORMAT: "operator",
  OTHER_CHAIN: "operator",
  SNAPSHOT_UNUSABLE: "operator",
  CANNOT_CONTINUE: "operator",
  NOT_WRITABLE: "operator",
  INTERNAL: "internal",
  TRACE_STOPPED: "internal",
  TRACE_SETUP: "internal",
  DURATION: "internal",
  UPSTREAM_READ_NEEDED: "internal",
  FILTER_CRITERIA: "internal",
  CHAIN_MISMATCH: "internal",
};

/** Whether a string names a code of the house (a code that crossed a channel, parsed). */
export function isErrorCode(s: unknown): s is ErrorCode {
  return typeof s === "string" && Object.hasOwn(ERROR_REACH, s);
}

/** The base of every error the house throws: a code from ErrorCode, and a cause when it wraps one. */
export abstract class FlashnodeError extends Error {
  abstract readonly code: ErrorCode;
}

/**
 * A JSON-RPC error: its wire code (geth's -32602, a revert's 3, a forwarded one's) and data, as
 * a client sees them. services/errors.ts holds geth's subclasses.
 */
export class RpcError extends FlashnodeError {
  readonly code: ErrorCode = "RPC";
  readonly rpcCode: number;
  declare readonly data?: unknown;

  constructor(rpcCode: number, message: string, data?: unknown, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.rpcCode = rpcCode;
    // Only set when given: hive compares `data`, so it must not appear by accident.
    if (data !== undefined) this.data = data;
  }
}

/** A system error (ENOENT, ENOSPC, EACCES…) where the node caught it: the operator's to fix. */
export class SystemError extends FlashnodeError {
  readonly code = "SYSTEM";
  constructor(e: Error) {
    super(e.message, { cause: e });
  }
}

/**
 * The house's view of anything thrown, at the edge that catches it: a FlashnodeError as it is; a
 * system error (a string errno code such as ENOENT; Node's ERR_* codes are programming errors)
 * as a SystemError; anything else undefined (a bug, or a library's error).
 */
export function houseError(e: unknown): FlashnodeError | undefined {
  if (e instanceof FlashnodeError) return e;
  if (!(e instanceof Error)) return undefined;
  const errno = (e as NodeJS.ErrnoException).code;
  return typeof errno === "string" && !errno.startsWith("ERR_") ? new SystemError(e) : undefined;
}

/** How anything thrown reaches the operator: a foreign error (a bug, a library's) is internal. */
export function reachOf(e: unknown): ErrorReach {
  const h = houseError(e);
  return h === undefined ? "internal" : ERROR_REACH[h.code];
}

/** Whether the CLI prints an error as one line (the operator's to fix) rather than its stack. */
export function isOperatorError(e: unknown): e is Error {
  return reachOf(e) !== "internal";
}

/** For a switch's default: the compiler fails when a case is missing. */
export function unreachable(x: never): never {
  throw new TypeError(`unhandled case ${String(x)}`);
}

/** A command-line mistake: printed as one line, exit code 1. */
export class UsageError extends FlashnodeError {
  readonly code = "USAGE";
}

/** A thread the node cannot run without (the sequencer's, the follower's) has ended. */
export class WorkerDiedError extends FlashnodeError {
  readonly code = "WORKER_DIED";
}

/** A signal came while a node was starting: the start gave up, leaving nothing running. */
export class StopRequested extends FlashnodeError {
  readonly code = "STOP_REQUESTED";
}
