// The tracing hooks, shaped after geth's (core/tracing): what each tracer sees of one
// transaction's execution. The bridge (bridge.ts) derives them from the EVM library's events.
import type { StateManagerInterface } from "@ethereumjs/common";
import type { Address } from "@ethereumjs/util";

/** One opcode about to run (geth's OnOpcode, before the opcode executes). */
export type Step = {
  readonly pc: number;
  readonly op: number;
  /** Gas left before the opcode. */
  readonly gas: bigint;
  /** What the opcode costs; for the CALL family, with the gas handed to the callee (geth). */
  readonly cost: bigint;
  /** The opcode's constant gas alone. */
  readonly constantGas: bigint;
  /** 1 for the transaction's own frame (geth's interpreter depth). */
  readonly depth: number;
  /** Bottom first. */
  readonly stack: readonly bigint[];
  /** Memory before the opcode expands it. */
  readonly memory: Uint8Array;
  /** The account whose storage the frame uses. */
  readonly address: Address;
  /** The transaction's refund counter. */
  readonly refund: bigint;
  /** What the frame's last call returned (geth's evm.returnData). */
  readonly returnData: Uint8Array;
  readonly state: StateManagerInterface;
};

/** A frame starting (geth's OnEnter): a call, a creation or a self-destruct. */
export type FrameStart = {
  /** 0 for the transaction's own frame. */
  readonly depth: number;
  readonly type: string;
  readonly from: Uint8Array;
  /** Undefined for a creation until it ends (the address is known then). */
  readonly to: Uint8Array | undefined;
  readonly input: Uint8Array;
  readonly gas: bigint;
  /** Undefined for STATICCALL. */
  readonly value: bigint | undefined;
};

/** A frame ending (geth's OnExit). */
export type FrameEnd = {
  readonly depth: number;
  readonly output: Uint8Array;
  readonly gasUsed: bigint;
  /** geth's error text. */
  readonly error: string | undefined;
  readonly reverted: boolean;
  /** The address a creation made. */
  readonly created: Uint8Array | undefined;
};

export type EmittedLog = {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
};

/** The transaction about to run, read before any of its effects (geth's OnTxStart). */
export type TxStart = {
  readonly from: Address;
  /** Undefined for a creation. */
  readonly to: Address | undefined;
  readonly gasLimit: bigint;
  readonly coinbase: Address;
  /** EIP-7702 authorities of a set-code transaction. */
  readonly authorities: readonly Address[];
  readonly state: StateManagerInterface;
};

/** The transaction done, its state final (geth's OnTxEnd). */
export type TxEnd = {
  /** The receipt's gas used. */
  readonly gasUsed: bigint;
  readonly state: StateManagerInterface;
};

export type Tracer = {
  txStart?(tx: TxStart): Promise<void>;
  opcode?(step: Step): void | Promise<void>;
  /**
   * The opcode of `step` failed: before running (`error`: geth reports such errors with the
   * step) or while running (`error` undefined); geth had charged it `cost`.
   */
  opcodeFault?(step: Step, error: string | undefined, cost: bigint): void;
  enter?(frame: FrameStart): void;
  exit?(frame: FrameEnd): void;
  /** A log the transaction emitted (at the current frame). */
  log?(log: EmittedLog): void;
  txEnd?(tx: TxEnd): Promise<void>;
  /** The trace as JSON text. */
  result(): string;
};
