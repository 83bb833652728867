// Random EVM programs for the interpreter loops' differential test: seeded, so a failing case is
// rebuilt from its seed. A program is a sequence of stack-neutral snippets (arithmetic, memory,
// storage, transient storage, environment reads, logs, calls and creates between the generated
// contracts, precompiles and accounts, forward branches and bounded loops), now and then raw
// random bytes (invalid opcodes, stack underflows, truncated pushes) or an invalid jump, ending
// in STOP, RETURN, REVERT, INVALID or SELFDESTRUCT. Gas runs out where it runs out.
import { asm } from "./evmAsm.ts";
import { type ProgramContext, type Rng, Writer } from "./evmProgramWriter.ts";

const BINARY = [
  "ADD",
  "MUL",
  "SUB",
  "DIV",
  "SDIV",
  "MOD",
  "SMOD",
  "EXP",
  "SIGNEXTEND",
  "LT",
  "GT",
  "SLT",
  "SGT",
  "EQ",
  "AND",
  "OR",
  "XOR",
  "BYTE",
  "SHL",
  "SHR",
  "SAR",
];
const UNARY = ["ISZERO", "NOT", "CLZ"];
const NULLARY = [
  "ADDRESS",
  "ORIGIN",
  "CALLER",
  "CALLVALUE",
  "CALLDATASIZE",
  "CODESIZE",
  "GASPRICE",
  "RETURNDATASIZE",
  "COINBASE",
  "TIMESTAMP",
  "NUMBER",
  "DIFFICULTY",
  "GASLIMIT",
  "CHAINID",
  "SELFBALANCE",
  "BASEFEE",
  "BLOBBASEFEE",
  "PC",
  "MSIZE",
  "GAS",
  "PUSH0",
];

type Snippet = (w: Writer, depth: number) => void;

const arithmetic: Snippet = (w) => {
  const r = w.rng;
  const kind = r.int(10);
  if (kind < 6) {
    w.push(w.value(), w.value());
    w.op(r.pick(BINARY));
  } else if (kind < 8) {
    w.push(w.value());
    w.op(r.pick(UNARY));
  } else {
    w.push(w.value(), w.value(), w.value());
    w.op(r.pick(["ADDMOD", "MULMOD"]));
  }
  w.sink();
};

const memory: Snippet = (w) => {
  const r = w.rng;
  switch (r.int(6)) {
    case 0:
      w.push(w.value(), w.offset());
      w.op("MSTORE");
      return;
    case 1:
      w.push(w.value(), w.offset());
      w.op("MSTORE8");
      return;
    case 2:
      w.push(w.offset());
      w.op("MLOAD");
      return w.sink();
    case 3:
      w.push(w.length(), w.offset(), w.offset());
      w.op("MCOPY");
      return;
    case 4:
      w.push(w.length(), w.offset());
      w.op("KECCAK256");
      return w.sink();
    default:
      w.op("MSIZE");
      return w.sink();
  }
};

const storage: Snippet = (w) => {
  const r = w.rng;
  switch (r.int(5)) {
    case 0:
    case 1:
      w.push(r.chance(0.4) ? 0n : w.value(), w.slot());
      w.op("SSTORE");
      return;
    case 2:
      w.push(w.slot());
      w.op("SLOAD");
      return w.sink();
    case 3:
      w.push(w.value(), w.slot());
      w.op("TSTORE");
      return;
    default:
      w.push(w.slot());
      w.op("TLOAD");
      return w.sink();
  }
};

const environment: Snippet = (w) => {
  const r = w.rng;
  switch (r.int(8)) {
    case 0:
      w.op(r.pick(NULLARY));
      return w.sink();
    case 1:
      w.push(w.address());
      w.op(r.pick(["BALANCE", "EXTCODESIZE", "EXTCODEHASH"]));
      return w.sink();
    case 2:
      w.push(w.length(), BigInt(r.int(40)), w.offset(), w.address());
      w.op("EXTCODECOPY");
      return;
    case 3:
      w.push(BigInt(r.int(80)));
      w.op("CALLDATALOAD");
      return w.sink();
    case 4:
      w.push(w.length(), BigInt(r.int(80)), w.offset());
      w.op(r.pick(["CALLDATACOPY", "CODECOPY"]));
      return;
    case 5:
      // Past the return data is out of gas: mostly within it, often up to its very end.
      if (r.chance(0.5)) {
        w.op("RETURNDATASIZE");
        w.push(0n, w.offset());
      } else w.push(BigInt(r.int(r.chance(0.8) ? 8 : 64)), BigInt(r.int(8)), w.offset());
      w.op("RETURNDATACOPY");
      return;
    case 6:
      w.push(r.chance(0.5) ? BigInt(r.int(12)) : w.value());
      w.op("BLOCKHASH");
      return w.sink();
    default:
      w.push(BigInt(r.int(2)));
      w.op("BLOBHASH");
      return w.sink();
  }
};

const log: Snippet = (w) => {
  const topics = w.rng.int(5);
  for (let i = 0; i < topics; i++) w.push(w.value());
  w.push(w.length(), w.offset());
  w.op(`LOG${topics}`);
};

const call: Snippet = (w) => {
  const r = w.rng;
  const kind = r.pick(["CALL", "CALL", "STATICCALL", "STATICCALL", "DELEGATECALL", "CALLCODE"]);
  if (r.chance(0.7)) {
    w.push(w.value(), BigInt(r.int(4) * 32));
    w.op("MSTORE");
  }
  w.push(BigInt(r.int(64)), BigInt(r.int(64)), BigInt(r.int(100)), BigInt(r.int(64)));
  if (kind === "CALL" || kind === "CALLCODE") w.push(r.chance(0.7) ? 0n : BigInt(r.int(1000)));
  w.push(w.address());
  if (r.chance(0.4)) w.op("GAS");
  else w.push(BigInt(r.pick([0, 100, 2_300, 10_000, 50_000, 200_000])));
  w.op(kind);
  w.sink();
  if (r.chance(0.3)) {
    w.op("RETURNDATASIZE");
    w.sink();
  }
};

/** Init code: a few snippets, then the runtime (random bytes) returned, or a revert. */
function initCode(w: Writer): Uint8Array {
  const r = w.rng;
  const inner = new Writer(r, w.ctx);
  const count = r.int(3);
  for (let i = 0; i < count; i++) r.pick([arithmetic, storage, log, memory])(inner, 2);
  const runtime = r.bytes(r.int(40));
  if (runtime.length > 0 && r.chance(0.1)) runtime[0] = 0xef; // EIP-3541: refused
  for (let i = 0; i < runtime.length; i += 32) {
    const chunk = runtime.subarray(i, i + 32);
    let v = 0n;
    for (let j = 0; j < 32; j++) v = (v << 8n) | BigInt(chunk[j] ?? 0);
    inner.push(v, BigInt(i));
    inner.op("MSTORE");
  }
  inner.push(BigInt(runtime.length), 0n);
  inner.op(r.chance(0.85) ? "RETURN" : "REVERT");
  return Uint8Array.from(Buffer.from(asm(inner.tokens), "hex"));
}

const create: Snippet = (w) => {
  const r = w.rng;
  const code = initCode(w);
  // Into memory at 0x400, one word at a time.
  for (let i = 0; i < code.length; i += 32) {
    let v = 0n;
    for (let j = 0; j < 32; j++) v = (v << 8n) | BigInt(code[i + j] ?? 0);
    w.push(v, BigInt(0x400 + i));
    w.op("MSTORE");
  }
  const value = r.chance(0.8) ? 0n : BigInt(r.int(100));
  if (r.chance(0.5)) {
    w.push(BigInt(code.length), 0x400n, value);
    w.op("CREATE");
  } else {
    w.push(BigInt(r.int(3)), BigInt(code.length), 0x400n, value);
    w.op("CREATE2");
  }
  w.sink();
};

const branch: Snippet = (w, depth) => {
  const skip = w.label();
  w.push(BigInt(w.rng.int(2)));
  w.tokens.push(`@${skip}`, "JUMPI");
  snippets(w, depth + 1, 1 + w.rng.int(3));
  w.tokens.push(`${skip}:`, "JUMPDEST");
};

const loop: Snippet = (w, depth) => {
  const top = w.label();
  w.push(BigInt(1 + w.rng.int(4)));
  w.tokens.push(`${top}:`, "JUMPDEST");
  snippets(w, depth + 1, 1 + w.rng.int(2));
  w.push(1n);
  w.op("SWAP1", "SUB", "DUP1");
  w.tokens.push(`@${top}`, "JUMPI");
  w.op("POP");
};

/** The first byte of calldata that sends a call to the program's probe (see randomProgram). */
const PROBE = 0xaan;

/**
 * STATICCALLs the running contract itself into its probe: one state change (a log, a storage or
 * transient write, a create, a call with value) that a static frame refuses.
 */
const staticProbe: Snippet = (w) => {
  w.push((PROBE << 248n) | BigInt(w.rng.int(256)), 0n);
  w.op("MSTORE");
  w.push(0n, 0n, 32n, 0n);
  w.op("ADDRESS", "GAS", "STATICCALL");
  w.sink();
};

const SNIPPETS: readonly [Snippet, number][] = [
  [arithmetic, 6],
  [memory, 5],
  [storage, 5],
  [environment, 4],
  [log, 3],
  [call, 4],
  [create, 1],
  [branch, 2],
  [loop, 1],
  [staticProbe, 1],
];
const TOTAL = SNIPPETS.reduce((a, [, weight]) => a + weight, 0);

function snippets(w: Writer, depth: number, count: number): void {
  for (let i = 0; i < count; i++) {
    let pick = w.rng.int(TOTAL);
    for (const [snippet, weight] of SNIPPETS) {
      if (pick < weight) {
        // Nested branches and loops stay shallow.
        if (depth > 1 && (snippet === branch || snippet === loop)) arithmetic(w, depth);
        else snippet(w, depth);
        break;
      }
      pick -= weight;
    }
  }
}

function ending(w: Writer): void {
  const rng = w.rng;
  if (rng.chance(0.1)) {
    // Into the prologue, into a PUSH's data, past the end: not a JUMPDEST.
    w.push(rng.pick([0n, 1n, 2n, 3n, BigInt(rng.int(40)), 1n << 40n]));
    w.op("JUMP");
  }
  const end = rng.int(10);
  if (end < 3) w.op("STOP");
  else if (end < 6) {
    w.push(w.length(), BigInt(rng.int(128)));
    w.op("RETURN");
  } else if (end < 8) {
    w.push(w.length(), BigInt(rng.int(128)));
    w.op("REVERT");
  } else if (end < 9) w.op("INVALID");
  else {
    w.push(w.address());
    w.op("SELFDESTRUCT");
  }
}

/**
 * A program's bytecode. Calldata whose first byte is PROBE runs the probe; otherwise its lowest
 * bit picks one of two paths, so transactions to one contract do different things. One program
 * in ten is straight-line code instead (no jumps: the interpreter never analyses it), now and
 * then cut short in the middle of a PUSH.
 */
export function randomProgram(rng: Rng, ctx: ProgramContext): Uint8Array {
  const w = new Writer(rng, ctx);
  if (rng.chance(0.1)) {
    for (let i = 2 + rng.int(8); i > 0; i--)
      rng.pick([arithmetic, memory, storage, environment, log])(w, 0);
    const code = Buffer.from(asm(w.tokens), "hex");
    return Uint8Array.from(rng.chance(0.5) ? code.subarray(0, code.length - rng.int(4)) : code);
  }
  const probe = w.label();
  const alt = w.label();
  w.push(0n);
  w.op("CALLDATALOAD");
  w.push(248n);
  w.op("SHR");
  w.push(PROBE);
  w.op("EQ");
  w.tokens.push(`@${probe}`, "JUMPI");
  w.push(0n);
  w.op("CALLDATALOAD");
  w.push(1n);
  w.op("AND");
  w.tokens.push(`@${alt}`, "JUMPI");
  snippets(w, 0, 2 + rng.int(10));
  w.tokens.push(`${alt}:`, "JUMPDEST");
  snippets(w, 0, 2 + rng.int(10));
  ending(w);
  w.tokens.push(`${probe}:`, "JUMPDEST");
  rng.pick([log, storage, create, call, arithmetic])(w, 2);
  w.op("STOP");
  const code = Buffer.from(asm(w.tokens), "hex");
  if (!rng.chance(0.08)) return Uint8Array.from(code);
  // Raw bytes somewhere: whatever they are (an invalid opcode, a stack underflow, a PUSH cut
  // off at the end of the code).
  const at = rng.int(code.length + 1);
  const raw = rng.bytes(1 + rng.int(4));
  return Uint8Array.from([...code.subarray(0, at), ...raw, ...code.subarray(at)]);
}
