// geth's DoS limits on calls: --rpc.gascap (the most gas a call, an estimate or an access list
// may use) and --rpc.evmtimeout (how long eth_call may run before it is aborted).
// The EVM's side of the timeout is in deadlineOpcodes.ts: this file is read by the RPC thread,
// which never loads the EVM.

import { FlashnodeError } from "../util/errors.ts";

export type CallLimits = {
  /** The gas cap; 0 = none. */
  readonly gasCap: bigint;
  /** eth_call's run time limit in ms; 0 = none. */
  readonly evmTimeoutMs: number;
};

/** geth's defaults: 50,000,000 gas, 5 s. */
export const DEFAULT_CALL_LIMITS: CallLimits = { gasCap: 50_000_000n, evmTimeoutMs: 5_000 };

/** A time span as Go's time.Duration prints it ("5s", "500ms", "1.5s", "1m30s", "0s"). */
export function goDuration(ms: number): string {
  if (ms === 0) return "0s";
  if (ms < 1000) return `${ms}ms`;
  const hours = Math.floor(ms / 3_600_000);
  const minutes = Math.floor((ms % 3_600_000) / 60_000);
  const seconds = ((ms % 60_000) / 1000).toString();
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  if (minutes > 0) return `${minutes}m${seconds}s`;
  return `${seconds}s`;
}

/** The EVM ran past its deadline (thrown from inside the interpreter, which lets it through). */
export class EvmTimeoutError extends FlashnodeError {
  readonly code = "EVM_TIMEOUT";
}
