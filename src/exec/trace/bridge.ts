// Turns the EVM library's events (step, beforeMessage, afterMessage) into geth's tracing hooks.
// The library announces an opcode before knowing whether it will run, so each step stays
// pending until the next event shows its fate: if its frame fails right after, the opcode did
// not run (its log, self-destruct or call never happened) and some errors belong to it.
import type { EVMInterface, EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bigIntToBytes, setLengthLeft } from "@ethereumjs/util";
import { FlashnodeError } from "../../util/errors.ts";
import { OP, opName } from "./opcodes.ts";
import type { EmittedLog, FrameStart, Step, Tracer } from "./types.ts";
import { type FrameFailure, frameFailure } from "./vmErrors.ts";

/** A trace stopped before its transaction ended (its message is the trace's error). */
export class TraceStoppedError extends FlashnodeError {
  readonly code = "TRACE_STOPPED";
}

export type TraceRules = {
  /** EIP-150: calls get at most all but one 64th of the gas left. */
  readonly eip150: boolean;
  /** EIP-2200's SSTORE sentry. */
  readonly sstoreSentry: boolean;
};

type Frame = {
  readonly message: Message;
  readonly isCreate: boolean;
  returnData: Uint8Array;
  last: Step | undefined;
};

type Pending = {
  readonly step: Step;
  readonly frame: number;
  log?: EmittedLog | undefined;
  selfdestruct?: FrameStart | undefined;
  /** A call or creation the opcode would start (geth reports one that fails fast too). */
  call?: FrameStart | undefined;
};

const EMPTY = new Uint8Array(0);
const CALL_STIPEND = 2300n;
const MAX_CALL_DEPTH = 1024;
/** No opcode can pay to touch memory this far: the step is bound to fail. */
const MEMORY_BOUND = 1n << 25n;

const CALLS = new Set<number>([OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.STATICCALL]);
/** Opcodes that end a frame successfully (STOP, RETURN, SELFDESTRUCT). */
const HALTS = new Set<number>([0x00, OP.RETURN, OP.SELFDESTRUCT]);

function word(value: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(value), 32);
}

function addressOf(value: bigint): Uint8Array {
  return word(value).subarray(12);
}

/** Memory[offset, offset+size) with zeros past its end (what the opcode reads once it grows). */
function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array | undefined {
  if (size === 0n) return EMPTY;
  if (offset + size > MEMORY_BOUND) return undefined;
  const out = new Uint8Array(Number(size));
  const start = Number(offset);
  if (start < memory.length)
    out.set(memory.subarray(start, Math.min(memory.length, start + out.length)));
  return out;
}

export class TraceBridge {
  private readonly frames: Frame[] = [];
  private pending: Pending | undefined;
  private failure: unknown;

  constructor(
    private readonly tracer: Tracer,
    private readonly deadline: number,
    private readonly rules: TraceRules,
  ) {}

  /** Listens to the EVM; returns the function that stops listening. */
  attach(evm: EVMInterface): () => void {
    const events = evm.events;
    if (events === undefined) throw new Error("the EVM emits no events to trace");
    // Two parameters: the library then awaits the listener (it calls `resolve` when done).
    const step = (ev: InterpreterStep, resolve?: () => void) => {
      this.check();
      this.settle(this.onStep(ev), resolve);
    };
    const before = (msg: Message, resolve?: () => void) => {
      this.check();
      this.onEnter(msg);
      resolve?.();
    };
    const after = (result: EVMResult, resolve?: () => void) => {
      this.settle(this.onExit(result), resolve);
    };
    events.on("step", step);
    events.on("beforeMessage", before);
    events.on("afterMessage", after);
    return () => {
      events.off("step", step);
      events.off("beforeMessage", before);
      events.off("afterMessage", after);
    };
  }

  /** After the transaction: a failure inside a listener, or the timeout, fails the trace. */
  finish(): void {
    this.check();
    this.resolvePending(undefined);
  }

  private check(): void {
    if (this.failure !== undefined) throw this.failure;
    // geth's stop reason when a trace outlives its timeout.
    if (Date.now() > this.deadline) throw new TraceStoppedError("execution timeout");
  }

  private settle(work: void | Promise<void>, resolve: (() => void) | undefined): void {
    if (work === undefined) {
      resolve?.();
      return;
    }
    work.then(
      () => resolve?.(),
      (e: unknown) => {
        this.failure = e;
        resolve?.();
      },
    );
  }

  /** geth's gas cost: for the CALL family it includes the gas handed to the callee. */
  private callGas(op: number, gas: bigint, fee: bigint, stack: readonly bigint[]): bigint {
    if (!CALLS.has(op) || gas < fee || stack.length === 0) return 0n;
    const requested = stack[stack.length - 1]!;
    if (!this.rules.eip150) return requested;
    const available = gas - fee;
    const cap = available - available / 64n;
    return requested < cap ? requested : cap;
  }

  private onStep(ev: InterpreterStep): void | Promise<void> {
    this.resolvePending(undefined);
    const index = this.frames.length - 1;
    const frame = this.frames[index];
    if (frame === undefined) return;
    // The library reports every undefined opcode as INVALID (0xfe): geth names the byte.
    const code = frame.message.code;
    const op =
      ev.opcode.name === "INVALID" && code instanceof Uint8Array
        ? (code[ev.pc] ?? ev.opcode.code)
        : ev.opcode.code;
    const fee = ev.opcode.dynamicFee ?? BigInt(ev.opcode.fee);
    const callGas = this.callGas(op, ev.gasLeft, fee, ev.stack);
    const step: Step = {
      pc: ev.pc,
      op,
      gas: ev.gasLeft,
      cost: fee + callGas,
      constantGas: BigInt(ev.opcode.fee),
      depth: ev.depth + 1,
      stack: ev.stack,
      memory: ev.memory,
      address: ev.address,
      refund: ev.gasRefund,
      returnData: frame.returnData,
      state: ev.stateManager,
    };
    frame.last = step;
    const pending: Pending = { step, frame: index };
    this.pending = pending;
    if (this.tracer.log !== undefined && op >= OP.LOG0 && op <= OP.LOG4) {
      pending.log = this.logOf(step);
    }
    if (this.tracer.enter !== undefined) {
      if (CALLS.has(op) || op === OP.CREATE || op === OP.CREATE2) {
        pending.call = this.callOf(step, callGas);
      } else if (op === OP.SELFDESTRUCT) {
        return this.selfdestruct(step, pending);
      }
    }
    return this.tracer.opcode?.(step);
  }

  private logOf(step: Step): EmittedLog | undefined {
    const s = step.stack;
    const topics = step.op - OP.LOG0;
    if (s.length < topics + 2) return undefined;
    const data = memorySlice(step.memory, s[s.length - 1]!, s[s.length - 2]!);
    if (data === undefined) return undefined;
    const list: Uint8Array[] = [];
    for (let i = 0; i < topics; i++) list.push(word(s[s.length - 3 - i]!));
    return { address: step.address.bytes, topics: list, data };
  }

  /** The frame a CALL/CREATE opcode starts, as far as the opcode's own inputs tell. */
  private callOf(step: Step, callGas: bigint): FrameStart | undefined {
    const s = step.stack;
    const top = (i: number) => s[s.length - 1 - i]!;
    const depth = step.depth;
    const type = opName(step.op);
    if (step.op === OP.CREATE || step.op === OP.CREATE2) {
      if (s.length < (step.op === OP.CREATE ? 3 : 4)) return undefined;
      const input = memorySlice(step.memory, top(1), top(2));
      const left = step.gas - step.cost;
      const gas = this.rules.eip150 ? left - left / 64n : left;
      if (input === undefined || left < 0n) return undefined;
      return { depth, type, from: step.address.bytes, to: undefined, input, gas, value: top(0) };
    }
    const withValue = step.op === OP.CALL || step.op === OP.CALLCODE;
    if (s.length < (withValue ? 7 : 6)) return undefined;
    const value = withValue ? top(2) : 0n;
    const args = withValue ? 3 : 2;
    const input = memorySlice(step.memory, top(args), top(args + 1));
    if (input === undefined) return undefined;
    return {
      depth,
      type,
      from: step.address.bytes,
      to: addressOf(top(1)),
      input,
      gas: callGas + (value !== 0n && withValue ? CALL_STIPEND : 0n),
      value: step.op === OP.STATICCALL ? undefined : value,
    };
  }

  private async selfdestruct(step: Step, pending: Pending): Promise<void> {
    const account = await step.state.getAccount(step.address);
    const beneficiary = step.stack[step.stack.length - 1];
    if (beneficiary !== undefined) {
      pending.selfdestruct = {
        depth: step.depth,
        type: "SELFDESTRUCT",
        from: step.address.bytes,
        to: addressOf(beneficiary),
        input: EMPTY,
        gas: 0n,
        value: account?.balance ?? 0n,
      };
    }
    await this.tracer.opcode?.(step);
  }

  /** Settles the pending step: ran (`failure` undefined) or failed with its frame. */
  private resolvePending(failure: FrameFailure | undefined): void {
    const p = this.pending;
    if (p === undefined) return;
    this.pending = undefined;
    if (failure !== undefined) {
      if (failure.beforeOpcode || failure.cost !== undefined) {
        const error = failure.beforeOpcode ? failure.message : undefined;
        this.tracer.opcodeFault?.(p.step, error, failure.cost ?? p.step.cost);
      }
      return;
    }
    if (p.log !== undefined) this.tracer.log?.(p.log);
    const quick = p.selfdestruct ?? p.call;
    if (quick === undefined) return;
    // A self-destruct is a frame of its own to geth; a call that reached here started none:
    // it failed before entering (call depth, balance), as geth reports it.
    this.tracer.enter?.(quick);
    const failed = p.call === undefined ? undefined : this.fastFailure(p.call);
    this.tracer.exit?.({
      depth: quick.depth,
      output: EMPTY,
      gasUsed: 0n,
      error: failed,
      reverted: failed !== undefined,
      created: undefined,
    });
  }

  private fastFailure(call: FrameStart): string {
    return call.depth > MAX_CALL_DEPTH
      ? "max call depth exceeded"
      : "insufficient balance for transfer";
  }

  private onEnter(msg: Message): void {
    // The pending opcode (a call or creation) started this frame: it did not fail fast.
    if (this.pending !== undefined) this.pending.call = undefined;
    this.resolvePending(undefined);
    const parent = this.frames[this.frames.length - 1];
    const isCreate = msg.to === undefined;
    const op = parent?.last?.op;
    let type = isCreate ? "CREATE" : "CALL";
    if (parent !== undefined && op !== undefined && (CALLS.has(op) || isCreate)) type = opName(op);
    const redirected = type === "DELEGATECALL" || type === "CALLCODE";
    this.frames.push({ message: msg, isCreate, returnData: EMPTY, last: undefined });
    this.tracer.enter?.({
      depth: msg.depth,
      type,
      // geth: the calling frame's own address (DELEGATECALL's message says otherwise).
      from: parent?.last?.address.bytes ?? msg.caller.bytes,
      to: isCreate ? undefined : (redirected ? msg.codeAddress : msg.to!).bytes,
      input: msg.data,
      gas: msg.gasLimit,
      value: type === "STATICCALL" ? undefined : msg.value,
    });
  }

  private onExit(result: EVMResult): void | Promise<void> {
    const frame = this.frames.pop();
    if (frame === undefined) return;
    const depth = this.frames.length;
    const error = result.execResult.exceptionError?.error;
    const failure =
      error === undefined
        ? undefined
        : frameFailure(error, frame.last, frame.isCreate, this.rules.sstoreSentry);
    this.resolvePending(this.pending?.frame === depth ? failure : undefined);
    const stop = error === undefined ? this.ranOffEnd(result, frame) : undefined;
    const work = stop === undefined ? undefined : this.tracer.opcode?.(stop);
    if (work === undefined) return this.exit(result, frame, depth, error, failure);
    return work.then(() => this.exit(result, frame, depth, error, failure));
  }

  /** geth reads past the end of the code as a STOP, and logs it: the library just stops. */
  private ranOffEnd(result: EVMResult, frame: Frame): Step | undefined {
    const last = frame.last;
    const run = result.execResult.runState;
    if (last === undefined || run === undefined || HALTS.has(last.op)) return undefined;
    if (run.programCounter < run.code.length) return undefined;
    return {
      pc: run.programCounter,
      op: 0x00,
      gas: run.gasLeft,
      cost: 0n,
      constantGas: 0n,
      depth: last.depth,
      stack: run.stack.getStack(),
      memory: run.memory._store.slice(0, Number(run.memoryWordCount) * 32),
      address: last.address,
      refund: run.gasRefund,
      returnData: frame.returnData,
      state: last.state,
    };
  }

  private exit(
    result: EVMResult,
    frame: Frame,
    depth: number,
    error: string | undefined,
    failure: FrameFailure | undefined,
  ): void {
    const output = result.execResult.returnValue;
    this.tracer.exit?.({
      depth,
      output,
      gasUsed: result.execResult.executionGasUsed,
      error: failure?.message,
      // Frontier kept a creation whose code could not be stored (geth: not reverted).
      reverted: error !== undefined && error !== "code store out of gas",
      created: frame.isCreate ? result.createdAddress?.bytes : undefined,
    });
    const parent = this.frames[this.frames.length - 1];
    if (parent === undefined) return;
    const reverted = error === "revert";
    parent.returnData = (frame.isCreate ? reverted : error === undefined || reverted)
      ? output
      : EMPTY;
  }
}
