// The logs of simulated calls as geth's simulate tracer (internal/ethapi/logtracer.go) collects
// them: per call frame, dropped with a failing frame, and (with traceTransfers) every ether
// transfer as an ERC-7528 Transfer log from 0xeeee…eeee. Log indices count every log captured in
// the block, kept or dropped, as geth's do.
//
// The EVM library's `step` event would show every opcode but costs several times the execution
// itself; instead the handlers of the few opcodes that matter (LOGn, the CALL and CREATE family,
// SELFDESTRUCT) are wrapped in the library's opcode table, and frames come from its
// before/afterMessage events.
import type { EVMInterface, EVMResult, Message } from "@ethereumjs/evm";
import { bigIntToBytes, hexToBytes, padLeft } from "../../util/hex.ts";
import { type OpcodeHandler, opcodeTable } from "../vmInternals.ts";

export type TracedLog = {
  readonly address: Uint8Array;
  readonly topics: Uint8Array[];
  readonly data: Uint8Array;
  logIndex: number;
};

const TRANSFER_TOPIC = hexToBytes(
  "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef",
);
const TRANSFER_ADDRESS = hexToBytes("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee");
const OP = {
  CREATE: 0xf0,
  CALL: 0xf1,
  CALLCODE: 0xf2,
  DELEGATECALL: 0xf4,
  CREATE2: 0xf5,
  STATICCALL: 0xfa,
  SELFDESTRUCT: 0xff,
} as const;
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const CALLS = [OP.CREATE, OP.CALL, OP.CALLCODE, OP.DELEGATECALL, OP.CREATE2, OP.STATICCALL];

const word = (value: bigint) => padLeft(bigIntToBytes(value), 32);
const address = (value: bigint) => word(value).subarray(12);

export class SimTracer {
  private frames: TracedLog[][] = [];
  /** The CALL-family opcode that is entering a frame now (what the frame was entered by). */
  private entering: number | undefined;
  /** Set when the frame a CALL or CREATE asked for was entered. */
  private entered = false;
  private createTargets: Array<TracedLog | undefined> = [];
  private count = 0;
  private active = false;
  private txLogs: TracedLog[] = [];
  private lastOp: number | undefined;
  private readonly wrapped = new WeakSet<OpcodeHandler>();

  constructor(private readonly traceTransfers: boolean) {}

  attach(events: NonNullable<EVMInterface["events"]>): void {
    events.on("beforeMessage", (msg: Message) => this.enter(msg));
    events.on("afterMessage", (result: EVMResult) => this.exit(result));
  }

  /**
   * Wraps the opcodes that log or transfer in `evm`'s current opcode table (the library
   * rebuilds the table when the fork changes: call again after each change).
   */
  instrument(evm: EVMInterface): void {
    const table = opcodeTable(evm);
    const wrap = (op: number, make: (original: OpcodeHandler) => OpcodeHandler) => {
      const entry = table[op];
      if (entry === undefined || this.wrapped.has(entry.opHandler)) return;
      const handler = make(entry.opHandler);
      this.wrapped.add(handler);
      entry.opHandler = handler;
    };
    for (let op = LOG0; op <= LOG4; op++) wrap(op, (original) => this.logHandler(original));
    for (const op of CALLS) wrap(op, (original) => this.callHandler(op, original));
    if (this.traceTransfers)
      wrap(OP.SELFDESTRUCT, (original) => this.selfdestructHandler(original));
  }

  /** A new block: log indices start again from 0. */
  startBlock(): void {
    this.count = 0;
  }

  startTx(): void {
    this.active = true;
    this.frames = [];
    this.entering = undefined;
    this.createTargets = [];
    this.txLogs = [];
    this.lastOp = undefined;
  }

  /** The opcode the top frame stopped at (names an invalid opcode in the call's error). */
  lastTopOp(): number | undefined {
    return this.lastOp;
  }

  /** The call's logs (none when it failed). */
  endTx(): TracedLog[] {
    this.active = false;
    return this.txLogs;
  }

  private capture(frame: TracedLog[] | undefined, log: Omit<TracedLog, "logIndex">): TracedLog {
    const captured = { ...log, logIndex: this.count++ };
    frame?.push(captured);
    return captured;
  }

  private transfer(from: Uint8Array, to: Uint8Array, value: bigint): Omit<TracedLog, "logIndex"> {
    return {
      address: TRANSFER_ADDRESS,
      topics: [TRANSFER_TOPIC, padLeft(from, 32), padLeft(to, 32)],
      data: word(value),
    };
  }

  private top(): TracedLog[] | undefined {
    return this.frames[this.frames.length - 1];
  }

  private enter(msg: Message): void {
    if (!this.active) return;
    const op =
      msg.depth === 0 ? (msg.to === undefined ? OP.CREATE : OP.CALL) : (this.entering ?? OP.CALL);
    this.entered = true;
    this.frames.push([]);
    let target: TracedLog | undefined;
    const moves = !msg.delegatecall && op !== OP.CALLCODE && op !== OP.DELEGATECALL;
    if (this.traceTransfers && moves && msg.value > 0n) {
      const to = msg.to?.bytes ?? new Uint8Array(20);
      const log = this.capture(this.top(), this.transfer(msg.caller.bytes, to, msg.value));
      // A creation's address is known once it ran.
      if (msg.to === undefined) target = log;
    }
    this.createTargets[msg.depth] = target;
  }

  private exit(result: EVMResult): void {
    if (!this.active) return;
    const depth = this.frames.length - 1;
    const success = result.execResult.exceptionError === undefined;
    const target = this.createTargets[depth];
    if (target !== undefined && result.createdAddress !== undefined)
      target.topics[2] = padLeft(result.createdAddress.bytes, 32);
    const frame = this.frames.pop() ?? [];
    if (depth === 0) {
      this.txLogs = success ? frame : [];
      this.lastOp = result.execResult.runState?.opCode;
    } else if (success) this.top()?.push(...frame);
  }

  private logHandler(original: OpcodeHandler): OpcodeHandler {
    return (runState, common) => {
      if (!this.active) return original(runState, common);
      const n = runState.opCode - LOG0;
      const [offset, size, ...topics] = runState.stack.peek(2 + n);
      // Gas for the memory was paid before the handler runs: reading it is what LOG does.
      const data =
        size === 0n ? new Uint8Array(0) : runState.memory.read(Number(offset), Number(size));
      const out = original(runState, common);
      this.capture(this.top(), {
        address: runState.interpreter.getAddress().bytes,
        topics: topics.map(word),
        data,
      });
      return out;
    };
  }

  /**
   * geth's tracer sees a value transfer even when the call then fails its depth or balance
   * check (the library makes no frame then): the log is captured and dropped, its index spent.
   */
  private callHandler(op: number, original: OpcodeHandler): OpcodeHandler {
    return async (runState, common) => {
      if (!this.active) return original(runState, common);
      const stack = runState.stack.peek(3);
      const value =
        op === OP.CALL
          ? (stack[2] ?? 0n)
          : op === OP.CREATE || op === OP.CREATE2
            ? (stack[0] ?? 0n)
            : 0n;
      const outer = this.entered;
      this.entering = op;
      this.entered = false;
      try {
        return await original(runState, common);
      } finally {
        if (this.traceTransfers && value > 0n && !this.entered) this.count++;
        this.entering = undefined;
        this.entered = outer;
      }
    };
  }

  private selfdestructHandler(original: OpcodeHandler): OpcodeHandler {
    return async (runState, common) => {
      if (!this.active) return original(runState, common);
      const self = runState.interpreter.getAddress();
      const [beneficiary] = runState.stack.peek(1);
      const balance = (await runState.stateManager.getAccount(self))?.balance ?? 0n;
      const capture = () => {
        if (balance > 0n)
          this.capture(this.top(), this.transfer(self.bytes, address(beneficiary ?? 0n), balance));
      };
      try {
        const out = await original(runState, common);
        capture();
        return out;
      } catch (e) {
        // The library ends the frame after a SELFDESTRUCT by throwing its STOP.
        if ((e as { error?: unknown }).error === "stop") capture();
        throw e;
      }
    };
  }
}
