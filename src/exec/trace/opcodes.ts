// Opcode names as geth prints them (core/vm/opcodes.go: a static table, the same for every
// fork) and each opcode's stack inputs and outputs (geth's jump table), which its stack errors
// quote.

const NAMES: Record<number, string> = {
  0: "STOP",
  1: "ADD",
  2: "MUL",
  3: "SUB",
  4: "DIV",
  5: "SDIV",
  6: "MOD",
  7: "SMOD",
  8: "ADDMOD",
  9: "MULMOD",
  10: "EXP",
  11: "SIGNEXTEND",
  16: "LT",
  17: "GT",
  18: "SLT",
  19: "SGT",
  20: "EQ",
  21: "ISZERO",
  22: "AND",
  23: "OR",
  24: "XOR",
  25: "NOT",
  26: "BYTE",
  27: "SHL",
  28: "SHR",
  29: "SAR",
  30: "CLZ",
  32: "KECCAK256",
  48: "ADDRESS",
  49: "BALANCE",
  50: "ORIGIN",
  51: "CALLER",
  52: "CALLVALUE",
  53: "CALLDATALOAD",
  54: "CALLDATASIZE",
  55: "CALLDATACOPY",
  56: "CODESIZE",
  57: "CODECOPY",
  58: "GASPRICE",
  59: "EXTCODESIZE",
  60: "EXTCODECOPY",
  61: "RETURNDATASIZE",
  62: "RETURNDATACOPY",
  63: "EXTCODEHASH",
  64: "BLOCKHASH",
  65: "COINBASE",
  66: "TIMESTAMP",
  67: "NUMBER",
  68: "DIFFICULTY",
  69: "GASLIMIT",
  70: "CHAINID",
  71: "SELFBALANCE",
  72: "BASEFEE",
  73: "BLOBHASH",
  74: "BLOBBASEFEE",
  75: "SLOTNUM",
  80: "POP",
  81: "MLOAD",
  82: "MSTORE",
  83: "MSTORE8",
  84: "SLOAD",
  85: "SSTORE",
  86: "JUMP",
  87: "JUMPI",
  88: "PC",
  89: "MSIZE",
  90: "GAS",
  91: "JUMPDEST",
  92: "TLOAD",
  93: "TSTORE",
  94: "MCOPY",
  95: "PUSH0",
  208: "DATALOAD",
  209: "DATALOADN",
  210: "DATASIZE",
  211: "DATACOPY",
  224: "RJUMP",
  225: "RJUMPI",
  226: "RJUMPV",
  227: "CALLF",
  228: "RETF",
  229: "JUMPF",
  230: "DUPN",
  231: "SWAPN",
  232: "EXCHANGE",
  236: "EOFCREATE",
  238: "RETURNCONTRACT",
  240: "CREATE",
  241: "CALL",
  242: "CALLCODE",
  243: "RETURN",
  244: "DELEGATECALL",
  245: "CREATE2",
  247: "RETURNDATALOAD",
  248: "EXTCALL",
  249: "EXTDELEGATECALL",
  250: "STATICCALL",
  251: "EXTSTATICCALL",
  253: "REVERT",
  254: "INVALID",
  255: "SELFDESTRUCT",
};
for (let i = 1; i <= 32; i++) NAMES[0x5f + i] = `PUSH${i}`;
for (let i = 1; i <= 16; i++) {
  NAMES[0x7f + i] = `DUP${i}`;
  NAMES[0x8f + i] = `SWAP${i}`;
}
for (let i = 0; i <= 4; i++) NAMES[0xa0 + i] = `LOG${i}`;

/** geth's OpCode.String(). */
export function opName(op: number): string {
  return NAMES[op] ?? `opcode 0x${op.toString(16)} not defined`;
}

// [inputs, outputs] of the opcodes whose shape is not (0 in, 1 out).
const SHAPES: Record<number, readonly [number, number]> = {
  0: [0, 0],
  21: [1, 1],
  25: [1, 1],
  30: [1, 1],
  8: [3, 1],
  9: [3, 1],
  49: [1, 1],
  53: [1, 1],
  55: [3, 0],
  57: [3, 0],
  59: [1, 1],
  60: [4, 0],
  62: [3, 0],
  63: [1, 1],
  64: [1, 1],
  73: [1, 1],
  80: [1, 0],
  81: [1, 1],
  82: [2, 0],
  83: [2, 0],
  84: [1, 1],
  85: [2, 0],
  86: [1, 0],
  87: [2, 0],
  91: [0, 0],
  92: [1, 1],
  93: [2, 0],
  94: [3, 0],
  240: [3, 1],
  241: [7, 1],
  242: [7, 1],
  243: [2, 0],
  244: [6, 1],
  245: [4, 1],
  250: [6, 1],
  253: [2, 0],
  255: [1, 0],
};
// Binary arithmetic, comparison, bitwise and hashing: two in, one out.
for (const op of [
  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17,
  0x18, 0x1a, 0x1b, 0x1c, 0x1d, 0x20,
]) {
  SHAPES[op] = [2, 1];
}
for (let i = 1; i <= 16; i++) {
  SHAPES[0x7f + i] = [i, i + 1];
  SHAPES[0x8f + i] = [i + 1, i + 1];
}
for (let i = 0; i <= 4; i++) SHAPES[0xa0 + i] = [i + 2, 0];

/** Stack items an opcode takes and leaves (undefined opcodes: none). */
export function stackShape(op: number): readonly [inputs: number, outputs: number] {
  if (NAMES[op] === undefined || op === 0xfe) return [0, 0];
  return SHAPES[op] ?? [0, 1];
}

export const OP = {
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  RETURN: 0xf3,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  SELFDESTRUCT: 0xff,
  SLOAD: 0x54,
  SSTORE: 0x55,
  BALANCE: 0x31,
  EXTCODESIZE: 0x3b,
  EXTCODECOPY: 0x3c,
  EXTCODEHASH: 0x3f,
  RETURNDATACOPY: 0x3e,
  LOG0: 0xa0,
  LOG4: 0xa4,
} as const;
