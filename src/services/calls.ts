// The call service: eth_call, eth_estimateGas, eth_createAccessList, debug_trace*, eth_simulateV1
// and testing_buildBlockV1, as the RPC methods ask for them and the call worker (exec/) answers.
import type { PendingBase, PendingTransaction } from "../pending/types.ts";
import type { BuildBlockRequest, BuiltPayload } from "./buildBlock.ts";
import type { AccessListResult, CallRequest, CallResult, CallTarget } from "./callRequest.ts";
import type { SimulatedBlock, SimulateRequest } from "./simulate.ts";

/** geth's TraceConfig, parsed; the tracer and its config are checked where the trace runs. */
export type TraceOptions = {
  /** The tracer's name; undefined: the struct logger. */
  readonly tracer: string | undefined;
  readonly enableMemory: boolean;
  readonly disableStack: boolean;
  readonly disableStorage: boolean;
  readonly enableReturnData: boolean;
  readonly limit: number;
  /** `tracerConfig` as given (a JSON value); undefined when absent. */
  readonly tracerConfig: unknown;
  /** A Go duration ("5s" when absent). */
  readonly timeout: string | undefined;
};

/** What a trace replays: a block's transactions, or one of them, or a call. */
export type TraceRequest =
  | { readonly kind: "block"; readonly number: number }
  /** The pre-confirmed block as the RPC thread sees it (the worker's copy may lag). */
  | {
      readonly kind: "pendingBlock";
      readonly base: PendingBase;
      readonly transactions: readonly PendingTransaction[];
    }
  | { readonly kind: "transaction"; readonly number: number; readonly index: number }
  | {
      readonly kind: "call";
      readonly request: CallRequest;
      readonly number: number;
      /** Run after this many of the block's transactions, on its parent's state (geth's txIndex). */
      readonly txIndex: number | undefined;
    };

export type CallService = {
  call(request: CallRequest, target: CallTarget): Promise<CallResult>;
  estimateGas(request: CallRequest, target: CallTarget): Promise<bigint>;
  createAccessList(request: CallRequest, target: CallTarget): Promise<AccessListResult>;
  /** debug_trace*: the trace as JSON text (a block's: `[{txHash, result}]`). */
  trace(request: TraceRequest, options: TraceOptions): Promise<string>;
  /** Builds a block without storing it (testing_buildBlockV1). */
  buildBlock(request: BuildBlockRequest): Promise<BuiltPayload>;
  /** eth_simulateV1 on top of the target block (its limits are checked before). */
  simulate(request: SimulateRequest, target: CallTarget): Promise<SimulatedBlock[]>;
};
