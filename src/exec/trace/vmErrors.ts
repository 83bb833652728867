// The EVM library's frame errors in geth's words (core/vm/errors.go). geth reports some errors
// with the opcode that hit them (checked before the opcode runs: stack bounds, gas) and others
// only on the frame; the library words some differently or finds them elsewhere, so the last
// opcode the frame ran decides.
import { OP, opName, stackShape } from "./opcodes.ts";
import type { Step } from "./types.ts";

export type FrameFailure = {
  readonly message: string;
  /** geth finds it before the opcode runs and reports it with the opcode's struct log. */
  readonly beforeOpcode: boolean;
  /** What geth had charged when it found it, if not the opcode's full cost. */
  readonly cost?: bigint;
};

const STACK_LIMIT = 1024;
/** EIP-3860 (Shanghai on). */
const MAX_INITCODE_SIZE = 49152;
/** Writes geth refuses in a static call from the opcode's gas function (LOG, TSTORE: later). */
const GAS_CHECKED_WRITES = new Set<number>([
  OP.SSTORE,
  OP.CREATE,
  OP.CREATE2,
  OP.SELFDESTRUCT,
  OP.CALL,
  OP.CALLCODE,
]);
/** EIP-2200: SSTORE needs more gas than the call stipend. */
const SSTORE_SENTRY_GAS = 2300n;

const RENAMED: Record<string, string> = {
  revert: "execution reverted",
  "invalid JUMP": "invalid jump destination",
  "create collision": "contract address collision",
  "insufficient balance": "insufficient balance for transfer",
  "code size to deposit exceeds maximum code size": "max code size exceeded",
  "invalid bytecode deployed": "invalid code: must not begin with 0xef",
  "initcode exceeds max initcode size": "max initcode size exceeded",
  "code store out of gas": "contract creation code storage out of gas",
};

/**
 * geth's text for a frame that failed with the library's `error`; `last` is the frame's last
 * opcode (undefined when none ran), `isCreate` whether the frame deploys code.
 */
export function frameFailure(
  error: string,
  last: Step | undefined,
  isCreate: boolean,
  sstoreSentry: boolean,
): FrameFailure {
  // geth refuses oversized init code in CREATE's gas function.
  if (
    error === "initcode exceeds max initcode size" &&
    last !== undefined &&
    (last.op === OP.CREATE || last.op === OP.CREATE2) &&
    last.stack.length >= 3
  ) {
    const size = last.stack[last.stack.length - 3]!;
    return {
      message: `out of gas: max initcode size exceeded: code size ${size} limit ${MAX_INITCODE_SIZE}`,
      beforeOpcode: true,
      cost: last.constantGas,
    };
  }
  const renamed = RENAMED[error];
  if (renamed !== undefined) return { message: renamed, beforeOpcode: false };
  if (last === undefined) return { message: error, beforeOpcode: false };
  const [inputs, outputs] = stackShape(last.op);
  switch (error) {
    case "stack underflow":
      return {
        message: `stack underflow (${last.stack.length} <=> ${inputs})`,
        beforeOpcode: true,
      };
    case "stack overflow":
      return {
        message: `stack limit reached ${last.stack.length} (${STACK_LIMIT + inputs - outputs})`,
        beforeOpcode: true,
      };
    case "invalid opcode":
      return { message: `invalid opcode: ${opName(last.op)}`, beforeOpcode: false };
    case "out of gas":
      return outOfGas(last, isCreate, sstoreSentry);
    case "static state change":
      // geth checks these in their gas functions: a gas error, before any dynamic cost.
      if (GAS_CHECKED_WRITES.has(last.op))
        return {
          message: "out of gas: write protection",
          beforeOpcode: true,
          cost: last.constantGas,
        };
      return { message: "write protection", beforeOpcode: false };
  }
  return { message: error, beforeOpcode: false };
}

/** 3 per word copied. */
function copyGas(size: bigint): bigint {
  return 3n * ((size + 31n) / 32n);
}

/** What growing memory from `current` bytes to cover [offset, offset+size) costs. */
function memoryGas(current: number, offset: bigint, size: bigint): bigint {
  if (size === 0n) return 0n;
  const cost = (words: bigint) => 3n * words + (words * words) / 512n;
  const words = (offset + size + 31n) / 32n;
  const now = BigInt(current) / 32n;
  return words > now ? cost(words) - cost(now) : 0n;
}

function outOfGas(last: Step, isCreate: boolean, sstoreSentry: boolean): FrameFailure {
  // A RETURN that could pay for itself ended the frame: the code deposit ran out (geth's
  // ErrCodeStoreOutOfGas).
  if (isCreate && last.op === OP.RETURN && last.gas >= last.cost)
    return { message: "contract creation code storage out of gas", beforeOpcode: false };
  if (sstoreSentry && last.op === OP.SSTORE && last.gas <= SSTORE_SENTRY_GAS)
    return { message: "out of gas: not enough gas for reentrancy sentry", beforeOpcode: true };
  // The library charges a read past the return data as gas; geth checks it when copying.
  if (last.op === OP.RETURNDATACOPY && last.stack.length >= 3) {
    const n = last.stack.length;
    const offset = last.stack[n - 2]!;
    const size = last.stack[n - 3]!;
    if (offset + size > BigInt(last.returnData.length)) {
      // geth charged the copy and the memory before finding it; the library only the base.
      const dest = last.stack[n - 1]!;
      const cost = last.constantGas + copyGas(size) + memoryGas(last.memory.length, dest, size);
      return { message: "return data out of bounds", beforeOpcode: false, cost };
    }
  }
  return { message: "out of gas", beforeOpcode: true };
}
