// The EVM library's failure names as geth words them (core/vm/errors.go), for a simulated call's
// `error.message`.
const GETH_TEXT: Record<string, string> = {
  "out of gas": "out of gas",
  "code store out of gas": "contract creation code storage out of gas",
  "code size to deposit exceeds maximum code size": "max code size exceeded",
  "invalid JUMP": "invalid jump destination",
  "static state change": "write protection",
  "create collision": "contract address collision",
  "insufficient balance": "insufficient balance for transfer",
  "invalid bytecode deployed": "invalid code: must not begin with 0xef",
  "initcode exceeds max initcode size": "max initcode size exceeded",
  "value overflow": "gas uint64 overflow",
};

/** `op`: the opcode the failing top frame ran last (names an invalid opcode as geth does). */
export function vmErrorMessage(error: string, op: number | undefined): string {
  if (error === "invalid opcode" && op !== undefined) {
    return op === 0xfe
      ? "invalid opcode: INVALID"
      : `invalid opcode: opcode 0x${op.toString(16)} not defined`;
  }
  return GETH_TEXT[error] ?? error;
}
