// geth's default tracer, the struct logger (eth/tracers/logger/logger.go): one entry per opcode
// in geth's legacy JSON form, and the transaction's gas, failure and return value.
import { bytesToHex, bytesToUnprefixedHex, padLeft } from "../../util/hex.ts";
import { TraceStoppedError } from "./bridge.ts";
import { OP, opName } from "./opcodes.ts";
import type { FrameEnd, Step, Tracer, TxEnd } from "./types.ts";

export type StructLoggerConfig = {
  readonly enableMemory: boolean;
  readonly disableStack: boolean;
  readonly disableStorage: boolean;
  readonly enableReturnData: boolean;
  /** Stop logging once the entries so far exceed this many bytes (0: no limit). */
  readonly limit: number;
};

type Entry = {
  readonly step: Step;
  readonly storage: string | undefined;
  error?: string;
  cost?: bigint;
};

const EMPTY = new Uint8Array(0);
/**
 * Past this much JSON the trace is refused rather than risk the worker's memory (geth has no
 * such bound; `limit` or dropping memory and stack keep a trace under it).
 */
const MAX_LOG_BYTES = 256 * 1024 * 1024;

function hash(value: bigint): string {
  return `0x${value.toString(16).padStart(64, "0")}`;
}

function memoryWords(memory: Uint8Array): string {
  let out = "[";
  for (let i = 0; i < memory.length; i += 32) {
    const chunk = memory.subarray(i, i + 32);
    const hex = bytesToUnprefixedHex(chunk).padEnd(64, "0");
    out += `${i === 0 ? "" : ","}"0x${hex}"`;
  }
  return `${out}]`;
}

export class StructLogger implements Tracer {
  private readonly logs: string[] = [];
  private size = 0;
  private pending: Entry | undefined;
  /** Every slot read or written so far, per contract (geth shows the whole map each time). */
  private readonly storage = new Map<string, Map<string, string>>();
  private output: Uint8Array = EMPTY;
  private error: string | undefined;
  private reverted = false;
  private gasUsed = 0n;

  constructor(private readonly config: StructLoggerConfig) {}

  opcode(step: Step): void | Promise<void> {
    this.flush();
    if (this.config.limit !== 0 && this.size > this.config.limit) return;
    if (this.config.disableStorage || (step.op !== OP.SLOAD && step.op !== OP.SSTORE)) {
      this.pending = { step, storage: undefined };
      return;
    }
    const contract = step.address.toString();
    let slots = this.storage.get(contract);
    if (slots === undefined) {
      slots = new Map();
      this.storage.set(contract, slots);
    }
    const stack = step.stack;
    const n = stack.length;
    if (step.op === OP.SSTORE && n >= 2) {
      slots.set(hash(stack[n - 1]!), hash(stack[n - 2]!));
      this.pending = { step, storage: storageJson(slots) };
      return;
    }
    if (step.op !== OP.SLOAD || n < 1) {
      this.pending = { step, storage: undefined };
      return;
    }
    const key = hash(stack[n - 1]!);
    const map = slots;
    return step.state.getStorage(step.address, padLeft(hexWord(key), 32)).then((value) => {
      map.set(key, bytesToHex(padLeft(value, 32)));
      this.pending = { step, storage: storageJson(map) };
    });
  }

  opcodeFault(step: Step, error: string | undefined, cost: bigint): void {
    if (this.pending?.step !== step) return;
    if (error !== undefined) this.pending.error = error;
    this.pending.cost = cost;
  }

  exit(frame: FrameEnd): void {
    if (frame.depth !== 0) return;
    this.output = frame.output;
    this.error = frame.error;
    this.reverted = frame.error === "execution reverted";
  }

  async txEnd(tx: TxEnd): Promise<void> {
    this.gasUsed = tx.gasUsed;
  }

  private flush(): void {
    const e = this.pending;
    if (e === undefined) return;
    this.pending = undefined;
    const s = e.step;
    let json = `{"pc":${s.pc},"op":"${opName(s.op)}","gas":${s.gas},"gasCost":${e.cost ?? s.cost},"depth":${s.depth}`;
    if (e.error !== undefined) json += `,"error":${JSON.stringify(e.error)}`;
    if (!this.config.disableStack) {
      json += `,"stack":[${s.stack.map((v) => `"0x${v.toString(16)}"`).join(",")}]`;
    }
    if (this.config.enableReturnData && s.returnData.length > 0) {
      json += `,"returnData":"${bytesToHex(s.returnData)}"`;
    }
    if (this.config.enableMemory && s.memory.length > 0)
      json += `,"memory":${memoryWords(s.memory)}`;
    if (e.storage !== undefined) json += `,"storage":${e.storage}`;
    if (s.refund !== 0n) json += `,"refund":${s.refund}`;
    json += "}";
    this.size += json.length;
    if (this.size > MAX_LOG_BYTES)
      throw new TraceStoppedError(
        "struct logs exceed 256 MB: set a limit, or leave out memory, stack or storage",
      );
    this.logs.push(json);
  }

  result(): string {
    this.flush();
    const failed = this.error !== undefined;
    // The return data when it succeeded, the revert data when it reverted, else nothing.
    const value = failed && !this.reverted ? EMPTY : this.output;
    return `{"gas":${this.gasUsed},"failed":${failed},"returnValue":"${bytesToHex(value)}","structLogs":[${this.logs.join(",")}]}`;
  }
}

function hexWord(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex.slice(2), "hex"));
}

/** Go marshals a map with its keys sorted. */
function storageJson(slots: Map<string, string>): string {
  const keys = [...slots.keys()].sort();
  return `{${keys.map((k) => `"${k}":"${slots.get(k)}"`).join(",")}}`;
}
