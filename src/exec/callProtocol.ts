// Messages between the RPC thread and the call worker. Plain data only.
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { AccessListResult, CallRequest, CallResult, CallTarget } from "../rpc/backend.ts";
import type { SimulatedBlock, SimulateRequest } from "../rpc/simulateTypes.ts";

export type CallWorkerData = {
  readonly datadir: string;
  /** Open the archive read-only (`serve`): lmdb's threads of one process share one mode. */
  readonly readOnly?: boolean;
};

export type ToCallWorker =
  | {
      readonly type: "call" | "estimate" | "accessList";
      readonly id: number;
      readonly request: CallRequest;
      readonly target: CallTarget;
    }
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
  | { readonly type: "simulated"; readonly id: number; readonly blocks: SimulatedBlock[] }
  | {
      readonly type: "error";
      readonly id: number;
      readonly message: string;
      readonly rpcCode: number;
      readonly data: string | undefined;
    };
