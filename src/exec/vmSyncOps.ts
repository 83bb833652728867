// Twins of EVM library handlers, for the synchronous loop (vmInterpreter.ts). The library declares
// every dynamic-gas handler `async`, so each costs a promise and an await although memory
// expansion, copy costs, EXP, LOG and EIP-2929's warm/cold accounting read only the run state and
// the journal's warm sets: their twins are synchronous. A few frequent opcode handlers have twins
// that do what the library's do with cheaper conversions (PUSH without asking the Common about
// stateless EIPs at every push; MSTORE, SLOAD and SSTORE without the library's hex-string and
// array-spread padding of a word), SLOAD and SSTORE still through the interpreter's own
// storageLoad/storageStore. Each twin is the library's computation for the forks the loop runs
// (EXCLUDED_EIPS in vmInterpreter.ts), with the library's own helpers where it has them; an
// opcode without a twin keeps the library's handler, awaited where it returns a promise.
import type { Common } from "@ethereumjs/common";
import { EVMError } from "@ethereumjs/evm";
import { bigIntToBytes, bytesToBigInt, setLengthRight } from "@ethereumjs/util";
import {
  accessAddressEIP2929,
  accessStorageEIP2929,
} from "../../node_modules/@ethereumjs/evm/dist/esm/opcodes/EIP2929.js";
import {
  createAddressFromStackBigInt,
  divCeil,
  subMemUsage,
  trap,
} from "../../node_modules/@ethereumjs/evm/dist/esm/opcodes/util.js";
import type { LoopRunState } from "./vmLibrary.ts";

type SyncGas = (runState: LoopRunState, gas: bigint, common: Common) => bigint;
/** An opcode handler's twin: a promise only where the library's handler really waits. */
type OpTwin = (runState: LoopRunState, common: Common) => Promise<void> | undefined;
type RunState = Parameters<typeof subMemUsage>[0];

const WORD = 32n;
const asRunState = (rs: LoopRunState) => rs as unknown as RunState;
const memory = (rs: LoopRunState, offset: bigint, length: bigint, common: Common) =>
  subMemUsage(asRunState(rs), offset, length, common);

/** Memory expansion for [offset, offset + length) with the two topmost stack words. */
const memoryRange: SyncGas = (rs, gas, common) => {
  const [offset, length] = rs.stack.peek(2) as [bigint, bigint];
  return gas + memory(rs, offset, length, common);
};

/** Memory expansion for one word (or byte) at the topmost stack word. */
const memoryAt =
  (size: bigint): SyncGas =>
  (rs, gas, common) =>
    gas + memory(rs, rs.stack.peek(1)[0]!, size, common);

/** CALLDATACOPY, CODECOPY: memory expansion and copyGas per word copied. */
const copy: SyncGas = (rs, gas, common) => {
  const [memOffset, , length] = rs.stack.peek(3) as [bigint, bigint, bigint];
  let out = gas + memory(rs, memOffset, length, common);
  if (length !== 0n) out += common.param("copyGas") * divCeil(length, WORD);
  return out;
};

/** BALANCE, EXTCODESIZE, EXTCODEHASH: the address's EIP-2929 access. */
const addressAccess: SyncGas = (rs, gas, common) => {
  const address = createAddressFromStackBigInt(rs.stack.peek(1)[0]!);
  return gas + accessAddressEIP2929(asRunState(rs), address.bytes, common, true);
};

const exp: SyncGas = (rs, gas, common) => {
  const exponent = rs.stack.peek(2)[1]!;
  if (exponent === 0n) return gas;
  const bytes = Math.ceil(exponent.toString(2).length / 8);
  if (bytes < 1 || bytes > 32) trap(EVMError.errorMessages.OUT_OF_RANGE);
  return gas + BigInt(bytes) * common.param("expByteGas");
};

const keccak: SyncGas = (rs, gas, common) => {
  const [offset, length] = rs.stack.peek(2) as [bigint, bigint];
  return (
    gas +
    memory(rs, offset, length, common) +
    common.param("keccak256WordGas") * divCeil(length, WORD)
  );
};

const extcodecopy: SyncGas = (rs, gas, common) => {
  const [addressWord, memOffset, , length] = rs.stack.peek(4) as [bigint, bigint, bigint, bigint];
  const address = createAddressFromStackBigInt(addressWord);
  let out = gas + memory(rs, memOffset, length, common);
  out += accessAddressEIP2929(asRunState(rs), address.bytes, common, true);
  if (length !== 0n) out += common.param("copyGas") * divCeil(length, WORD);
  return out;
};

const returndatacopy: SyncGas = (rs, gas, common) => {
  const [memOffset, dataOffset, length] = rs.stack.peek(3) as [bigint, bigint, bigint];
  const available = (
    rs.interpreter as unknown as { getReturnDataSize(): bigint }
  ).getReturnDataSize();
  // Legacy code only (the loop never runs EOF code): reading past the data is out of gas.
  if (dataOffset + length > available) trap(EVMError.errorMessages.OUT_OF_GAS);
  let out = gas + memory(rs, memOffset, length, common);
  if (length !== 0n) out += common.param("copyGas") * divCeil(length, WORD);
  return out;
};

const sloadGas: SyncGas = (rs, gas, common) => {
  const key = bigIntToWord(rs.stack.peek(1)[0]!);
  return gas + accessStorageEIP2929(asRunState(rs), key, false, common, true);
};

const mcopy: SyncGas = (rs, gas, common) => {
  const [dst, src, length] = rs.stack.peek(3) as [bigint, bigint, bigint];
  const words = (length + 31n) / WORD;
  return gas + 3n * words + memory(rs, src, length, common) + memory(rs, dst, length, common);
};

const log: SyncGas = (rs, gas, common) => {
  if (rs.interpreter.isStatic()) trap(EVMError.errorMessages.STATIC_STATE_CHANGE);
  const [offset, length] = rs.stack.peek(2) as [bigint, bigint];
  const topics = (rs as unknown as { opCode: number }).opCode - 0xa0;
  if (topics < 0 || topics > 4) trap(EVMError.errorMessages.OUT_OF_RANGE);
  return (
    gas +
    memory(rs, offset, length, common) +
    common.param("logTopicGas") * BigInt(topics) +
    length * common.param("logDataGas")
  );
};

/**
 * A stack word (below 2^256) as 32 big-endian bytes, into `out` (a new array by default): what
 * the library computes as setLengthLeft(bigIntToBytes(word), 32), without its hex string and
 * array spreads (a third of an SLOAD's time).
 */
export function bigIntToWord(value: bigint, out = new Uint8Array(32)): Uint8Array {
  const view = new DataView(out.buffer, out.byteOffset, 32);
  view.setBigUint64(24, BigInt.asUintN(64, value));
  view.setBigUint64(16, BigInt.asUintN(64, value >> 64n));
  view.setBigUint64(8, BigInt.asUintN(64, value >> 128n));
  view.setBigUint64(0, value >> 192n);
  return out;
}

/** The synchronous gas twins, by opcode. */
export function gasTwins(): Map<number, SyncGas> {
  const out = new Map<number, SyncGas>([
    [0x0a, exp],
    [0x20, keccak],
    [0x31, addressAccess],
    [0x37, copy],
    [0x39, copy],
    [0x3b, addressAccess],
    [0x3c, extcodecopy],
    [0x3e, returndatacopy],
    [0x3f, addressAccess],
    [0x51, memoryAt(WORD)],
    [0x52, memoryAt(WORD)],
    [0x53, memoryAt(1n)],
    [0x54, sloadGas],
    [0x5e, mcopy],
    [0xf3, memoryRange],
    [0xfd, memoryRange],
  ]);
  for (let op = 0xa0; op <= 0xa4; op++) out.set(op, log);
  return out;
}

/**
 * PUSH1–PUSH32 without the stateless-witness check (EIPs 6800/7864, which the loop never runs):
 * the library asks the Common twice per PUSH whether they are active, a search of its EIP list.
 */
const push: OpTwin = (rs) => {
  const bytes = (rs as unknown as { opCode: number }).opCode - 0x5f;
  const pc = rs.programCounter;
  if (!rs.shouldDoJumpAnalysis) {
    rs.stack.push(rs.cachedPushes[pc]!);
  } else {
    let loaded = rs.code.subarray(pc, pc + bytes);
    if (loaded.length < bytes) loaded = setLengthRight(loaded, bytes);
    rs.stack.push(bytesToBigInt(loaded));
  }
  rs.programCounter = pc + bytes;
  return undefined;
};

/** MSTORE: the word into memory (Memory.write copies it, so one buffer serves every store). */
const scratch = new Uint8Array(32);
const mstore: OpTwin = (rs) => {
  const [offset, word] = rs.stack.popN(2) as [bigint, bigint];
  rs.memory.write(Number(offset), 32, bigIntToWord(word, scratch));
  return undefined;
};

/** SLOAD through the interpreter's storageLoad, as the library's handler. */
const sload: OpTwin = (rs) => {
  const key = bigIntToWord(rs.stack.pop());
  return rs.interpreter.storageLoad(key).then((value) => {
    rs.stack.push(value.length > 0 ? bytesToBigInt(value) : 0n);
  });
};

/** SSTORE through the interpreter's storageStore (no EIP-8037 state gas: not a fork it runs). */
const sstore: OpTwin = (rs) => {
  const [key, word] = rs.stack.popN(2) as [bigint, bigint];
  const value = word === 0n ? new Uint8Array(0) : bigIntToBytes(word);
  return rs.interpreter.storageStore(bigIntToWord(key), value);
};

/** The twins of opcode handlers, by opcode. */
export function opTwins(): Map<number, OpTwin> {
  const out = new Map<number, OpTwin>([
    [0x52, mstore],
    [0x54, sload],
    [0x55, sstore],
  ]);
  for (let op = 0x60; op <= 0x7f; op++) out.set(op, push);
  return out;
}
