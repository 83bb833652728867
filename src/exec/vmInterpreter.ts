// The EVM library's interpreter loop without a promise per opcode. @ethereumjs/evm 10.x runs a
// frame as `await this.runStep(op)` per opcode, and runStep awaits every dynamic-gas handler
// (all declared `async`) and every async opcode handler. This loop calls the same opcode and gas
// handlers of the EVM's own opcode table, in the library's order, and awaits only where one
// returns a promise (a state read, a nested call or create); the gas handlers that need no state
// run as synchronous twins, and PUSH, MSTORE, SLOAD and SSTORE as cheaper ones (vmSyncOps.ts); a
// contract's jump analysis is made once, not in every frame. On a loop with no state: 0.60 →
// 0.18 µs an opcode (docs/benchmarks.md).
//
// It replaces Interpreter.prototype.run for the EVMs given to useSyncInterpreter(), frame by
// frame; every other frame runs the library's own loop, which stays the reference:
// - EVMs never given to useSyncInterpreter(), and all of them with FLASHNODE_EVM_LOOP=library;
// - a frame with a `step` listener (tracing), the library's DEBUG logging or its profiler;
// - forks with EOF or the experimental EIPs whose run-loop hooks it does not carry
//   (stateless access witnesses, block access lists, state gas: EXCLUDED_EIPS).
// The differential test (interpreterLoop.test.ts) runs programs and transactions through both.
import type { Common } from "@ethereumjs/common";
import { EVMError, type EVMInterface } from "@ethereumjs/evm";
import { Interpreter } from "../../node_modules/@ethereumjs/evm/dist/esm/interpreter.js";
import { handlers } from "../../node_modules/@ethereumjs/evm/dist/esm/opcodes/functions.js";
import { dynamicGasHandlers } from "../../node_modules/@ethereumjs/evm/dist/esm/opcodes/gas.js";
import type {
  GasHandler,
  LoopInterpreter,
  LoopRunState,
  OpcodeEntry,
  OpHandler,
} from "./vmLibrary.ts";
import { gasTwins, opTwins } from "./vmSyncOps.ts";

/**
 * EOF (3540), stateless witnesses (6800, 7864), block access lists (7928), state gas (8037,
 * 8038), legacy DUPN/SWAPN/EXCHANGE immediates (8024): forks the loop leaves to the library.
 */
const EXCLUDED_EIPS = [3540, 6800, 7864, 7928, 8024, 8037, 8038];
const JUMP = 0x56;
const JUMPI = 0x57;
const MCOPY = 0x5e;
/** Contracts whose jump analysis is kept (the most recently run; a 24 KB contract's: ~200 KB). */
const KEPT_ANALYSES = 256;

type SyncGas = (runState: LoopRunState, gas: bigint, common: Common) => bigint;
type OpTwin = (runState: LoopRunState, common: Common) => Promise<void> | undefined;
type RunOutcome = { runState: LoopRunState; exceptionError: EVMError | undefined };
type Analysis = { readonly jumps: Uint8Array; readonly pushes: Record<number, bigint> };

/**
 * The twins, by opcode, with the library handler each stands for: a twin runs only where the
 * EVM's table still has that handler (custom opcodes and wrapped handlers run as they are).
 */
const libraryGas: (GasHandler | undefined)[] = [];
const gasTwin: (SyncGas | undefined)[] = [];
const libraryOp: (OpHandler | undefined)[] = [];
const opTwin: (OpTwin | undefined)[] = [];
for (const [op, twin] of gasTwins()) {
  libraryGas[op] = dynamicGasHandlers.get(op) as unknown as GasHandler;
  gasTwin[op] = twin;
}
for (const [op, twin] of opTwins()) {
  libraryOp[op] = handlers.get(op) as unknown as OpHandler;
  opTwin[op] = twin;
}

/**
 * Jump analyses (valid destinations, push values) by code, most recent last: a contract's code
 * is analysed once, not at every call into it (the library analyses it again in every frame).
 */
const analyses = new Map<Uint8Array, Analysis>();

function analysis(interpreter: LoopInterpreter, code: Uint8Array): Analysis {
  let out = analyses.get(code);
  if (out !== undefined) {
    analyses.delete(code);
    analyses.set(code, out);
    return out;
  }
  const { jumps, pushes } = interpreter._getValidJumpDestinations(code);
  out = { jumps, pushes };
  // Not kept when the code is a view into a much larger buffer (init code is one, into its
  // creator's memory): keeping the view would keep the buffer.
  if (code.buffer.byteLength > 2 * code.byteLength + 64) return out;
  if (analyses.size >= KEPT_ANALYSES) analyses.delete(analyses.keys().next().value!);
  analyses.set(code, out);
  return out;
}

/** One EVM's use of the loop. */
class SyncLoop {
  /** Frames this loop ran (the library's loop ran the others). */
  runs = 0;
  /** Whether the loop runs each opcode table's fork (the EVM builds a table per fork). */
  private readonly tables = new WeakMap<OpcodeEntry[], boolean>();

  runsFork(interpreter: LoopInterpreter): boolean {
    const table = interpreter._evm._opcodeMap;
    let ok = this.tables.get(table);
    if (ok === undefined) {
      const common = interpreter.common;
      ok = !EXCLUDED_EIPS.some((eip) => common.isActivatedEIP(eip));
      this.tables.set(table, ok);
    }
    return ok;
  }
}

const loops = new WeakMap<object, SyncLoop>();
let installed = false;

/** Which loop new EVMs get: `FLASHNODE_EVM_LOOP=library` keeps the library's own. */
function interpreterLoopChoice(): "sync" | "library" {
  return process.env.FLASHNODE_EVM_LOOP === "library" ? "library" : "sync";
}

/**
 * Runs `evm`'s frames through the synchronous loop (unless FLASHNODE_EVM_LOOP=library). Call once
 * after creating the VM; frames of other EVMs are not affected.
 */
export function useSyncInterpreter(evm: EVMInterface): void {
  if (interpreterLoopChoice() === "library") return;
  install();
  if (!loops.has(evm)) loops.set(evm, new SyncLoop());
}

/** How many frames `evm` ran through the synchronous loop (tests check the loop is in use). */
export function syncInterpreterRuns(evm: EVMInterface): number {
  return loops.get(evm)?.runs ?? 0;
}

function install(): void {
  if (installed) return;
  installed = true;
  const proto = Interpreter.prototype as unknown as {
    run(this: LoopInterpreter, code: Uint8Array, opts?: { pc?: number }): Promise<RunOutcome>;
  };
  const libraryRun = proto.run;
  proto.run = function run(this: LoopInterpreter, code: Uint8Array, opts = {}) {
    const loop = loops.get(this._evm);
    const evm = this._evm;
    if (
      loop === undefined ||
      !loop.runsFork(this) ||
      evm.DEBUG ||
      this.profilerOpts?.enabled === true ||
      evm.events.listenerCount("step") > 0
    )
      return libraryRun.call(this, code, opts);
    const pc = opts.pc ?? this._runState.programCounter;
    // The library's own refusal (an internal error) for a start outside the code.
    if (pc !== 0 && (pc < 0 || pc >= code.length)) return libraryRun.call(this, code, opts);
    loop.runs++;
    return runFrame(this, code, pc);
  };
}

function isEvmError(e: unknown): e is EVMError {
  return typeof e === "object" && e !== null && (e as EVMError).errorType === "EVMError";
}

/** Interpreter.run for legacy code: the library's loop, with a promise only where one waits. */
async function runFrame(
  interpreter: LoopInterpreter,
  code: Uint8Array,
  start: number,
): Promise<RunOutcome> {
  const rs = interpreter._runState;
  const table = interpreter._evm._opcodeMap;
  const common = interpreter.common;
  rs.code = code;
  rs.programCounter = start;
  let analysed = false;
  let error: EVMError | undefined;
  while (rs.programCounter < code.length) {
    const op = code[rs.programCounter]!;
    const entry = table[op]!;
    if (analysed) {
      // As the library's loop after its analysis (an undefined opcode's entry is INVALID's).
      rs.opCode = entry.opcodeInfo.code;
    } else {
      // As the library does: no jump analysis until the code's first JUMP, JUMPI or MCOPY.
      if (op === JUMP || op === JUMPI || op === MCOPY) {
        const a = analysis(interpreter, code);
        rs.validJumps = a.jumps;
        rs.cachedPushes = a.pushes;
        rs.shouldDoJumpAnalysis = false;
        analysed = true;
      }
      rs.opCode = op;
    }
    try {
      const waiting = step(interpreter, rs, entry, common);
      if (waiting !== undefined) await waiting;
    } catch (e) {
      rs.env.accessWitness?.revert();
      if (!isEvmError(e)) throw e;
      if (e.error !== EVMError.errorMessages.STOP) error = e;
      break;
    }
  }
  return { runState: rs, exceptionError: error };
}

/** Interpreter.runStep: gas, then the handler; a promise only if a handler returned one. */
function step(
  interpreter: LoopInterpreter,
  rs: LoopRunState,
  entry: OpcodeEntry,
  common: Common,
): Promise<void> | undefined {
  const info = entry.opcodeInfo;
  if (!info.dynamicGas) return execute(interpreter, rs, entry, info.feeBigInt, common);
  const op = info.code;
  const twin = gasTwin[op];
  const gasHandler = entry.gasHandler!;
  if (twin !== undefined && gasHandler === libraryGas[op])
    return execute(interpreter, rs, entry, twin(rs, info.feeBigInt, common), common);
  return Promise.resolve(gasHandler(rs, info.feeBigInt, common)).then((gas) =>
    execute(interpreter, rs, entry, gas, common),
  );
}

function execute(
  interpreter: LoopInterpreter,
  rs: LoopRunState,
  entry: OpcodeEntry,
  gas: bigint,
  common: Common,
): Promise<void> | undefined {
  const info = entry.opcodeInfo;
  if (info.isInvalid) throw new EVMError(EVMError.errorMessages.INVALID_OPCODE);
  interpreter.useGas(gas, info);
  rs.programCounter++;
  const op = info.code;
  const handler = entry.opHandler;
  const twin = opTwin[op];
  const result =
    twin !== undefined && handler === libraryOp[op] ? twin(rs, common) : handler(rs, common);
  // The library awaits the handler of an opcode it marks async, and only those.
  if (info.isAsync && isThenable(result)) return result.then(() => commitWitness(rs));
  rs.env.accessWitness?.commit();
  return undefined;
}

function commitWitness(rs: LoopRunState): void {
  rs.env.accessWitness?.commit();
}

function isThenable(value: unknown): value is Promise<unknown> {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { then?: unknown }).then === "function"
  );
}
