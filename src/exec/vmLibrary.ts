// The shapes vmInterpreter.ts and vmSyncOps.ts rely on in the EVM library's private modules
// (@ethereumjs/evm 10.x, dist/esm): the interpreter, its run state and its opcode table. Those two
// files import the Interpreter class and the gas helpers its opcode handlers share by path (the
// package exports none of them): the path is the very module the library's own EVM imports (one
// module instance, under tsx and in the esbuild bundle alike), and the interpreter-loop tests
// fail if it is not (they count the frames the new loop ran).
import type { Common } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

/** An opcode's description in the EVM's opcode table (the library's `Opcode`). */
export type OpInfo = {
  readonly code: number;
  readonly name: string;
  readonly feeBigInt: bigint;
  readonly isAsync: boolean;
  readonly dynamicGas: boolean;
  readonly isInvalid: boolean;
};

/** The part of an interpreter's run state this loop and its handlers touch. */
export type LoopRunState = {
  programCounter: number;
  opCode: number;
  code: Uint8Array;
  validJumps: Uint8Array;
  cachedPushes: Record<number, bigint>;
  shouldDoJumpAnalysis: boolean;
  gasLeft: bigint;
  stack: {
    peek(n?: number): bigint[];
    pop(): bigint;
    popN(n: number): bigint[];
    push(v: bigint): void;
  };
  memory: { write(offset: number, size: number, value: Uint8Array): void };
  env: {
    readonly address: Address;
    readonly accessWitness?: { commit(): void; revert(): void };
  };
  interpreter: {
    isStatic(): boolean;
    getAddress(): Address;
    getGasLeft(): bigint;
    storageLoad(key: Uint8Array): Promise<Uint8Array>;
    storageStore(key: Uint8Array, value: Uint8Array): Promise<void>;
  };
};

export type GasHandler = (
  runState: LoopRunState,
  gas: bigint,
  common: Common,
) => bigint | Promise<bigint>;
export type OpHandler = (runState: LoopRunState, common: Common) => unknown;

/** An entry of the EVM's opcode table (`_opcodeMap`). */
export type OpcodeEntry = {
  readonly opcodeInfo: OpInfo;
  opHandler: OpHandler;
  gasHandler?: GasHandler;
};

/** The EVM as the interpreter sees it (`interpreter._evm`). */
export type LoopEvm = {
  readonly _opcodeMap: OpcodeEntry[];
  readonly events: { listenerCount(event: string): number };
  readonly DEBUG: boolean;
};

/** The interpreter's fields and methods the loop uses. */
export type LoopInterpreter = {
  readonly _evm: LoopEvm;
  readonly _runState: LoopRunState;
  readonly common: Common;
  readonly profilerOpts?: { readonly enabled?: boolean };
  useGas(amount: bigint, context?: unknown): void;
  _getValidJumpDestinations(code: Uint8Array): {
    jumps: Uint8Array;
    pushes: Record<number, bigint>;
    opcodesCached: OpcodeEntry[];
  };
};
