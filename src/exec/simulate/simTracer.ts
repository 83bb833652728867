// The logs of simulated calls as geth's simulate tracer (internal/ethapi/logtracer.go) collects
// them: per call frame, dropped with a failing frame, and (with traceTransfers) every ether
// transfer as an ERC-7528 Transfer log from 0xeeee…eeee. Log indices count every log captured in
// the block, kept or dropped, as geth's do.
import type { EVMInterface, EVMResult, InterpreterStep, Message } from "@ethereumjs/evm";
import { bigIntToBytes, hexToBytes, padLeft } from "../../util/hex.ts";

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
const OP = { CREATE: 0xf0, CALL: 0xf1, CALLCODE: 0xf2, DELEGATECALL: 0xf4, CREATE2: 0xf5 } as const;
const LOG0 = 0xa0;
const LOG4 = 0xa4;
const SELFDESTRUCT = 0xff;
/** Beyond this a LOG's memory expansion cannot be paid for: it fails and leaves nothing. */
const MAX_LOG_DATA = 1n << 26n;

const word = (value: bigint) => padLeft(bigIntToBytes(value), 32);

export class SimTracer {
  private frames: TracedLog[][] = [];
  /** The opcode each depth last ran: what a new frame one deeper was entered by. */
  private ops: number[] = [];
  /** A log whose opcode has yet to succeed (known at the frame's next step or at its end). */
  private pending: { depth: number; log: TracedLog } | undefined;
  /**
   * A value-carrying CALL/CREATE at this depth that may fail before entering a frame (depth
   * limit, balance): geth captured its transfer log anyway, so its index is spent.
   */
  private expectEnter: number | undefined;
  private createTargets: Array<TracedLog | undefined> = [];
  private count = 0;
  private active = false;
  private txLogs: TracedLog[] = [];

  constructor(private readonly traceTransfers: boolean) {}

  attach(events: NonNullable<EVMInterface["events"]>): void {
    events.on("beforeMessage", (msg: Message) => this.enter(msg));
    events.on("afterMessage", (result: EVMResult) => this.exit(result));
    events.on("step", (step: InterpreterStep, resolve?: (result?: unknown) => void) => {
      this.step(step).then(
        () => resolve?.(),
        () => resolve?.(),
      );
    });
  }

  /** A new block: log indices start again from 0. */
  startBlock(): void {
    this.count = 0;
  }

  startTx(): void {
    this.active = true;
    this.frames = [];
    this.ops = [];
    this.pending = undefined;
    this.expectEnter = undefined;
    this.createTargets = [];
    this.txLogs = [];
  }

  /** The opcode the top frame ran last (what it failed on, when it failed). */
  lastTopOp(): number | undefined {
    return this.ops[0];
  }

  /** The call's logs (none when it failed). */
  endTx(): TracedLog[] {
    this.active = false;
    return this.txLogs;
  }

  private capture(log: Omit<TracedLog, "logIndex">): TracedLog {
    return { ...log, logIndex: this.count++ };
  }

  private transfer(from: Uint8Array, to: Uint8Array, value: bigint): TracedLog {
    return this.capture({
      address: TRANSFER_ADDRESS,
      topics: [TRANSFER_TOPIC, padLeft(from, 32), padLeft(to, 32)],
      data: word(value),
    });
  }

  private settlePending(success: boolean): void {
    const p = this.pending;
    this.pending = undefined;
    if (p === undefined || !success) return;
    const log = this.capture(p.log);
    this.frames[this.frames.length - 1]?.push(log);
  }

  private enter(msg: Message): void {
    if (!this.active) return;
    this.expectEnter = undefined;
    this.frames.push([]);
    const op =
      msg.depth === 0 ? (msg.to === undefined ? OP.CREATE : OP.CALL) : this.ops[msg.depth - 1];
    let target: TracedLog | undefined;
    if (
      this.traceTransfers &&
      !msg.delegatecall &&
      op !== OP.CALLCODE &&
      op !== OP.DELEGATECALL &&
      msg.value > 0n
    ) {
      const log = this.transfer(msg.caller.bytes, msg.to?.bytes ?? new Uint8Array(20), msg.value);
      this.frames[this.frames.length - 1]!.push(log);
      // A creation's address is known once it ran.
      if (msg.to === undefined) target = log;
    }
    this.createTargets[msg.depth] = target;
  }

  private exit(result: EVMResult): void {
    if (!this.active) return;
    const depth = this.frames.length - 1;
    const success = result.execResult.exceptionError === undefined;
    if (this.pending?.depth === depth) this.settlePending(success);
    if (this.expectEnter === depth) {
      if (success) this.count++;
      this.expectEnter = undefined;
    }
    const target = this.createTargets[depth];
    if (target !== undefined && result.createdAddress !== undefined)
      target.topics[2] = padLeft(result.createdAddress.bytes, 32);
    const frame = this.frames.pop() ?? [];
    if (depth === 0) this.txLogs = success ? frame : [];
    else if (success) this.frames[this.frames.length - 1]?.push(...frame);
  }

  private async step(s: InterpreterStep): Promise<void> {
    if (!this.active) return;
    const d = s.depth;
    if (this.pending !== undefined) this.settlePending(true);
    if (this.expectEnter === d) {
      this.count++;
      this.expectEnter = undefined;
    }
    const op = s.opcode.code;
    this.ops[d] = op;
    const stack = s.stack;
    const top = (i: number) => stack[stack.length - 1 - i] ?? 0n;
    if (op >= LOG0 && op <= LOG4) {
      const offset = top(0);
      const size = top(1);
      if (size > MAX_LOG_DATA || offset > MAX_LOG_DATA) return;
      const data = new Uint8Array(Number(size));
      const from = Number(offset);
      if (from < s.memory.length) data.set(s.memory.subarray(from, from + Number(size)));
      const topics: Uint8Array[] = [];
      for (let i = 0; i < op - LOG0; i++) topics.push(word(top(2 + i)));
      this.pending = { depth: d, log: { address: s.address.bytes, topics, data, logIndex: -1 } };
    } else if (this.traceTransfers && op === SELFDESTRUCT) {
      const balance = (await s.stateManager.getAccount(s.address))?.balance ?? 0n;
      if (balance > 0n) {
        const to = padLeft(bigIntToBytes(top(0)), 32).subarray(12);
        this.pending = {
          depth: d,
          log: {
            address: TRANSFER_ADDRESS,
            topics: [TRANSFER_TOPIC, padLeft(s.address.bytes, 32), padLeft(to, 32)],
            data: word(balance),
            logIndex: -1,
          },
        };
      }
    } else if (this.traceTransfers) {
      const value = op === OP.CALL ? top(2) : op === OP.CREATE || op === OP.CREATE2 ? top(0) : 0n;
      if (value > 0n) this.expectEnter = d;
    }
  }
}
