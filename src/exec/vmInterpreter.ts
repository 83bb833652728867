// The EVM library's interpreter loop without a promise per opcode. @ethereumjs/evm 10.x runs a
// frame as `await this.runStep(op)` per opcode, and runStep awaits every dynamic-gas handler
// (all declared `async`) and every async opcode handler: ~1.5 µs an opcode in microtasks alone.
// This loop calls the same opcode and gas handlers of the EVM's own opcode table, in the library's
// order, and awaits only where one returns a promise (state not yet read, a nested call or
// create); the gas handlers that need no state run as synchronous twins (vmSyncOps.ts).
//
// It replaces Interpreter.prototype.run for the EVMs given to useSyncInterpreter(), frame by
// frame; every other frame runs the library's own loop, which stays the reference:
// - EVMs never given to useSyncInterpreter(), and all of them with FLASHNODE_EVM_LOOP=library;
// - a frame with a `step` listener (tracing), the library's DEBUG logging or its profiler;
// - forks with EOF or the experimental EIPs whose run-loop hooks it does not carry
//   (stateless access witnesses, block access lists, state gas: EXCLUDED_EIPS).
// The differential test (interpreterLoop.test.ts) runs programs and transactions through both.
import type { Common } from "@ethereumjs/common";
import { EVMError, type EVMInterface, getOpcodesForHF } from "@ethereumjs/evm";
import { Interpreter } from "../../node_modules/@ethereumjs/evm/dist/esm/interpreter.js";
import type {
  GasHandler,
  LoopInterpreter,
  LoopRunState,
  OpcodeEntry,
  OpHandler,
} from "./vmLibrary.ts";
import { opTwins, syncGasHandlers } from "./vmSyncOps.ts";

/** EOF (3540), stateless witnesses (6800, 7864), block access lists (7928), state gas (8037, 8038). */
const EXCLUDED_EIPS = [3540, 6800, 7864, 7928, 8037, 8038];
const JUMP = 0x56;
const JUMPI = 0x57;
const MCOPY = 0x5e;

type Analysis = ReturnType<LoopInterpreter["_getValidJumpDestinations"]>;
type SyncGas = (runState: LoopRunState, gas: bigint, common: Common) => bigint;
type OpTwin = (runState: LoopRunState, common: Common) => Promise<void> | undefined;
type RunOutcome = { runState: LoopRunState; exceptionError: EVMError | undefined };

/** What the loop knows of one opcode table (the EVM builds a new one when the fork changes). */
class TablePlan {
  /** The library's own gas handler of each opcode, and its synchronous twin. */
  readonly libraryGas: (GasHandler | undefined)[] = [];
  readonly syncGas: (SyncGas | undefined)[] = [];
  /** The library's own handler of each opcode that has a twin, and the twin. */
  readonly libraryOp: (OpHandler | undefined)[] = [];
  readonly opTwin: (OpTwin | undefined)[] = [];
  /** Jump analysis by code: the same contract's code is analysed once, not at every call. */
  private readonly analyses = new WeakMap<Uint8Array, Analysis>();

  constructor(common: Common) {
    const library = getOpcodesForHF(common);
    for (const [op, sync] of syncGasHandlers()) {
      const handler = library.dynamicGasHandlers.get(op);
      if (handler === undefined) continue;
      this.libraryGas[op] = handler as unknown as GasHandler;
      this.syncGas[op] = sync;
    }
    for (const [op, sync] of opTwins()) {
      const handler = library.handlers.get(op);
      if (handler === undefined) continue;
      this.libraryOp[op] = handler as unknown as OpHandler;
      this.opTwin[op] = sync;
    }
  }

  /** The library's analysis of `code` (valid jump destinations, push values, opcode entries). */
  analysis(interpreter: LoopInterpreter, code: Uint8Array): Analysis {
    let out = this.analyses.get(code);
    if (out === undefined) {
      out = interpreter._getValidJumpDestinations(code);
      this.analyses.set(code, out);
    }
    return out;
  }
}

/** One EVM's use of the loop. */
class SyncLoop {
  /** Frames this loop ran (the library's loop ran the others). */
  runs = 0;
  private readonly plans = new WeakMap<OpcodeEntry[], TablePlan | null>();

  /** The plan for the EVM's current table; null where the fork is not one the loop runs. */
  plan(interpreter: LoopInterpreter): TablePlan | null {
    const table = interpreter._evm._opcodeMap;
    let plan = this.plans.get(table);
    if (plan === undefined) {
      const common = interpreter.common;
      plan = EXCLUDED_EIPS.some((eip) => common.isActivatedEIP(eip)) ? null : new TablePlan(common);
      this.plans.set(table, plan);
    }
    return plan;
  }
}

const loops = new WeakMap<object, SyncLoop>();
let installed = false;

/** Which loop new EVMs get: `FLASHNODE_EVM_LOOP=library` keeps the library's own. */
export function interpreterLoopChoice(): "sync" | "library" {
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
    const plan = loop?.plan(this);
    const evm = this._evm;
    if (
      loop === undefined ||
      plan == null ||
      evm.DEBUG ||
      this.profilerOpts?.enabled === true ||
      evm.events.listenerCount("step") > 0
    )
      return libraryRun.call(this, code, opts);
    const pc = opts.pc ?? this._runState.programCounter;
    // The library's own refusal (an internal error) for a start outside the code.
    if (pc !== 0 && (pc < 0 || pc >= code.length)) return libraryRun.call(this, code, opts);
    loop.runs++;
    return runFrame(this, plan, code, pc);
  };
}

function isEvmError(e: unknown): e is EVMError {
  return typeof e === "object" && e !== null && (e as EVMError).errorType === "EVMError";
}

/** Interpreter.run for legacy code: the library's loop, with a promise only where one waits. */
async function runFrame(
  interpreter: LoopInterpreter,
  plan: TablePlan,
  code: Uint8Array,
  start: number,
): Promise<RunOutcome> {
  const rs = interpreter._runState;
  const table = interpreter._evm._opcodeMap;
  const common = interpreter.common;
  rs.code = code;
  rs.programCounter = start;
  let cached: OpcodeEntry[] | undefined;
  let error: EVMError | undefined;
  while (rs.programCounter < code.length) {
    const pc = rs.programCounter;
    let entry: OpcodeEntry;
    if (cached === undefined) {
      // As the library does: no jump analysis until the code's first JUMP, JUMPI or MCOPY.
      const op = code[pc]!;
      if (op === JUMP || op === JUMPI || op === MCOPY) {
        const a = plan.analysis(interpreter, code);
        rs.validJumps = a.jumps;
        rs.cachedPushes = a.pushes;
        rs.shouldDoJumpAnalysis = false;
        cached = a.opcodesCached;
      }
      entry = table[op]!;
      rs.opCode = op;
    } else {
      entry = cached[pc]!;
      rs.opCode = entry.opcodeInfo.code;
    }
    try {
      const waiting = step(interpreter, rs, plan, entry, common);
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
  plan: TablePlan,
  entry: OpcodeEntry,
  common: Common,
): Promise<void> | undefined {
  const info = entry.opcodeInfo;
  if (!info.dynamicGas) return execute(interpreter, rs, plan, entry, info.feeBigInt, common);
  const op = info.code;
  const sync = plan.syncGas[op];
  const gasHandler = entry.gasHandler!;
  if (sync !== undefined && gasHandler === plan.libraryGas[op])
    return execute(interpreter, rs, plan, entry, sync(rs, info.feeBigInt, common), common);
  return Promise.resolve(gasHandler(rs, info.feeBigInt, common)).then((gas) =>
    execute(interpreter, rs, plan, entry, gas, common),
  );
}

function execute(
  interpreter: LoopInterpreter,
  rs: LoopRunState,
  plan: TablePlan,
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
  const twin = plan.opTwin[op];
  const result =
    twin !== undefined && handler === plan.libraryOp[op] ? twin(rs, common) : handler(rs, common);
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
