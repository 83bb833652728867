// eth_call's time limit inside the EVM (--rpc.evmtimeout): opcodes that check a deadline. Only
// the threads that run the EVM load this (the limits themselves are in callLimits.ts).
import type { Common } from "@ethereumjs/common";
import { type EVMOpts, getOpcodesForHF, paramsEVM } from "@ethereumjs/evm";
import { EvmTimeoutError } from "./callLimits.ts";

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

/**
 * Opcodes for the EVM of `common` that throw EvmTimeoutError once `deadline` (performance.now()
 * time; a function for a VM kept across calls, each with its own) has passed.
 */
export function deadlineOpcodes(common: Common, deadline: number | (() => number)): CustomOpcodes {
  const at = typeof deadline === "number" ? () => deadline : deadline;
  // The opcodes' gas prices are EVM parameters, which the EVM adds to its Common when built.
  const withGas = common.copy();
  withGas.updateParams(paramsEVM);
  const { opcodeMap } = getOpcodesForHF(withGas);
  let count = 0;
  const check = () => {
    // performance.now() costs about a cheap opcode: read the clock on every 64th check.
    if ((++count & 63) === 0 && performance.now() > at()) throw new EvmTimeoutError();
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
