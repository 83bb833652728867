// Messages between the RPC thread and the call worker. Plain data only.
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { BuildBlockRequest, BuiltPayload } from "../services/buildBlock.ts";
import type {
  AccessListResult,
  CallRequest,
  CallResult,
  CallTarget,
} from "../services/callRequest.ts";
import type { TraceOptions, TraceRequest } from "../services/calls.ts";
import type { SimulatedBlock, SimulateRequest } from "../services/simulate.ts";
import type { CallLimits } from "./callLimits.ts";

export type CallWorkerData = {
  readonly datadir: string;
  /** Open the archive read-only (`serve`): lmdb's threads of one process share one mode. */
  readonly readOnly?: boolean;
  /** --rpc-gascap and --rpc-evmtimeout (geth's defaults when absent). */
  readonly limits?: CallLimits;
  /** The gas limit built blocks move towards (decimal; testing_buildBlockV1). */
  readonly gasCeil?: string;
};

export type ToCallWorker =
  | {
      readonly type: "call" | "estimate" | "accessList";
      readonly id: number;
      readonly request: CallRequest;
      readonly target: CallTarget;
    }
  | {
      readonly type: "trace";
      readonly id: number;
      readonly request: TraceRequest;
      readonly options: TraceOptions;
    }
  | { readonly type: "build"; readonly id: number; readonly request: BuildBlockRequest }
  | {
      readonly type: "simulate";
      readonly id: number;
      readonly request: SimulateRequest;
      readonly target: CallTarget;
    }
  | { readonly type: "update"; readonly update: FlashblockUpdate | SealedUpdate };

export type FromCallWorker =
  | { readonly type: "ready" }
  | { readonly type: "failed"; readonly message: string }
  | { readonly type: "called"; readonly id: number; readonly result: CallResult }
  | { readonly type: "estimated"; readonly id: number; readonly gas: bigint }
  | { readonly type: "accessListed"; readonly id: number; readonly result: AccessListResult }
  /** A trace as JSON text. */
  | { readonly type: "traced"; readonly id: number; readonly json: string }
  | { readonly type: "built"; readonly id: number; readonly payload: BuiltPayload }
  | { readonly type: "simulated"; readonly id: number; readonly blocks: SimulatedBlock[] }
  | {
      readonly type: "error";
      readonly id: number;
      readonly message: string;
      readonly rpcCode: number;
      readonly data: string | undefined;
    };
