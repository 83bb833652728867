// geth's DoS limits on calls: --rpc.gascap (the most gas a call, an estimate or an access list
// may use) and --rpc.evmtimeout (how long eth_call may run before it is aborted).
import type { Common } from "@ethereumjs/common";
import { type EVMOpts, getOpcodesForHF, paramsEVM } from "@ethereumjs/evm";

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
export class EvmTimeoutError extends Error {
  readonly code = "EVM_TIMEOUT";
}

/**
 * Back jumps and new call frames, wrapped to check a deadline: every loop passes a JUMP or JUMPI,
 * and between two of them a frame runs at most its code's length of instructions, so no run
 * outlives the deadline by more than a moment. The EVM library runs an opcode's handler
 * synchronously inside its loop, where no timer can fire; the check is the only way in.
 */
const CHECKED_OPCODES = [
  0x56, // JUMP
  0x57, // JUMPI
  0xf0, // CREATE
  0xf1, // CALL
  0xf2, // CALLCODE
  0xf4, // DELEGATECALL
  0xf5, // CREATE2
  0xfa, // STATICCALL
];

type CustomOpcodes = NonNullable<EVMOpts["customOpcodes"]>;

/** Opcodes for the EVM of `common` that throw EvmTimeoutError once `deadline` has passed. */
export function deadlineOpcodes(common: Common, deadline: number): CustomOpcodes {
  // The opcodes' gas prices are EVM parameters, which the EVM adds to its Common when built.
  const withGas = common.copy();
  withGas.updateParams(paramsEVM);
  const { opcodeMap } = getOpcodesForHF(withGas);
  let count = 0;
  const check = () => {
    // performance.now() costs about a cheap opcode: read the clock on every 64th check.
    if ((++count & 63) === 0 && performance.now() > deadline) throw new EvmTimeoutError();
  };
  const out: CustomOpcodes = [];
  for (const code of CHECKED_OPCODES) {
    const entry = opcodeMap[code];
    if (entry === undefined || entry.opcodeInfo.isInvalid) continue;
    const run = entry.opHandler;
    out.push({
      opcode: code,
      opcodeName: entry.opcodeInfo.name,
      baseFee: entry.opcodeInfo.fee,
      ...(entry.opcodeInfo.dynamicGas ? { gasFunction: entry.gasHandler } : {}),
      logicFunction: (runState, c) => {
        check();
        return run(runState, c);
      },
    });
  }
  return out;
}
