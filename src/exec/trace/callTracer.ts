// geth's callTracer (eth/tracers/native/call.go): the tree of calls, creations and
// self-destructs, with their gas, input, output, errors, revert reasons and (withLog) logs.
import { array, data, object, qty } from "../../util/json.ts";
import { revertReason } from "../../util/revert.ts";
import type { EmittedLog, FrameEnd, FrameStart, Tracer, TxEnd, TxStart } from "./types.ts";

export type CallTracerConfig = { readonly onlyTopCall: boolean; readonly withLog: boolean };

type CallLog = EmittedLog & { readonly index: number; readonly position: number };

type CallFrame = {
  readonly type: string;
  readonly from: Uint8Array;
  gas: bigint;
  gasUsed: bigint;
  to: Uint8Array | undefined;
  readonly input: Uint8Array;
  output: Uint8Array | undefined;
  error: string | undefined;
  revertReason: string | undefined;
  readonly calls: CallFrame[];
  logs: CallLog[];
  readonly value: bigint | undefined;
  revertedSnapshot: boolean;
};

export class CallTracer implements Tracer {
  private readonly stack: CallFrame[] = [];
  private gasLimit = 0n;
  private depth = 0;
  /** Logs alive so far in the block (geth's log index counts across its transactions). */
  private logCount: number;
  /** The log count as each open frame began: a reverted frame's logs are undone. */
  private readonly logMarks: number[] = [];

  constructor(
    private readonly config: CallTracerConfig,
    logsBefore: number,
  ) {
    this.logCount = logsBefore;
  }

  async txStart(tx: TxStart): Promise<void> {
    this.gasLimit = tx.gasLimit;
  }

  enter(f: FrameStart): void {
    this.logMarks.push(this.logCount);
    this.depth = f.depth;
    if (this.config.onlyTopCall && f.depth > 0) return;
    this.stack.push({
      type: f.type,
      from: f.from,
      gas: f.depth === 0 ? this.gasLimit : f.gas,
      gasUsed: 0n,
      to: f.to,
      input: f.input,
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      value: f.value,
      revertedSnapshot: false,
    });
  }

  exit(f: FrameEnd): void {
    const mark = this.logMarks.pop();
    if (f.error !== undefined && f.reverted && mark !== undefined) this.logCount = mark;
    if (f.depth === 0) {
      if (this.stack.length === 1) finish(this.stack[0]!, f);
      return;
    }
    this.depth = f.depth - 1;
    if (this.config.onlyTopCall || this.stack.length <= 1) return;
    const call = this.stack.pop()!;
    call.gasUsed = f.gasUsed;
    finish(call, f);
    this.top()!.calls.push(call);
  }

  log(log: EmittedLog): void {
    const index = this.logCount++;
    if (!this.config.withLog) return;
    if (this.config.onlyTopCall && this.depth > 0) return;
    const frame = this.top();
    if (frame === undefined) return;
    frame.logs.push({ ...log, index, position: frame.calls.length });
  }

  async txEnd(tx: TxEnd): Promise<void> {
    const top = this.stack[0];
    if (top === undefined) return;
    top.gasUsed = tx.gasUsed;
    if (this.config.withLog) clearFailedLogs(top, false);
  }

  /** Logs emitted so far in the block (the next transaction's first index). */
  logsAfter(): number {
    return this.logCount;
  }

  result(): string {
    const top = this.stack[0];
    if (this.stack.length !== 1 || top === undefined)
      throw new Error("incorrect number of top-level calls");
    return frameJson(top);
  }

  private top(): CallFrame | undefined {
    return this.stack[this.stack.length - 1];
  }
}

/** geth's processOutput. */
function finish(frame: CallFrame, f: FrameEnd): void {
  // An error that did not revert (Frontier's code storage) is no error.
  if (f.error === undefined || !f.reverted) {
    frame.output = f.output;
    if (frame.to === undefined) frame.to = f.created;
    return;
  }
  frame.error = f.error;
  frame.revertedSnapshot = true;
  if (frame.type === "CREATE" || frame.type === "CREATE2") frame.to = undefined;
  if (f.error !== "execution reverted" || f.output.length === 0) return;
  frame.output = f.output;
  if (f.output.length >= 4) frame.revertReason = revertReason(f.output);
}

function clearFailedLogs(frame: CallFrame, parentFailed: boolean): void {
  const failed = (frame.error !== undefined && frame.revertedSnapshot) || parentFailed;
  if (failed) frame.logs = [];
  for (const call of frame.calls) clearFailedLogs(call, failed);
}

function frameJson(f: CallFrame): string {
  return object([
    ["from", data(f.from)],
    ["gas", qty(f.gas)],
    ["gasUsed", qty(f.gasUsed)],
    ["to", f.to === undefined ? undefined : data(f.to)],
    ["input", data(f.input)],
    ["output", f.output === undefined || f.output.length === 0 ? undefined : data(f.output)],
    ["error", f.error === undefined ? undefined : JSON.stringify(f.error)],
    ["revertReason", f.revertReason ? JSON.stringify(f.revertReason) : undefined],
    ["calls", f.calls.length === 0 ? undefined : array(f.calls, frameJson)],
    [
      "logs",
      f.logs.length === 0
        ? undefined
        : array(f.logs, (l) =>
            object([
              ["address", data(l.address)],
              ["topics", array(l.topics, data)],
              ["data", data(l.data)],
              ["index", qty(l.index)],
              ["position", qty(l.position)],
            ]),
          ),
    ],
    ["value", f.value === undefined ? undefined : qty(f.value)],
    ["type", JSON.stringify(f.type)],
  ]);
}
