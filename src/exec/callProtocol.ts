// What the RPC thread and the call worker ask of each other (src/util/channel.ts). Plain data.

import type { SharedPendingSnapshot } from "../pending/pendingBlock.ts";
import type { BuildBlockRequest, BuiltPayload } from "../services/buildBlock.ts";
import type {
  AccessListResult,
  CallRequest,
  CallResult,
  CallTarget,
} from "../services/callRequest.ts";
import type { TraceOptions, TraceRequest } from "../services/calls.ts";
import type { SimulatedBlock, SimulateRequest } from "../services/simulate.ts";
import type { UpstreamSeries } from "../upstream/callStats.ts";
import type { UpstreamOptions } from "../upstream/options.ts";
import type { StartEvents } from "../util/tsWorker.ts";
import type { CallLimits } from "./callLimits.ts";

export type CallWorkerData = {
  readonly datadir: string;
  /** Open the archive read-only (`serve`): lmdb's threads of one process share one mode. */
  readonly readOnly?: boolean;
  /** --rpc-gascap and --rpc-evmtimeout (geth's defaults when absent). */
  readonly limits?: CallLimits;
  /** The gas limit built blocks move towards (decimal; testing_buildBlockV1). */
  readonly gasCeil?: string;
  /** A forked chain: its upstream, whose state at F answers what the chain never wrote. */
  readonly fork?: CallWorkerFork;
};

export type CallWorkerFork = {
  readonly upstream: UpstreamOptions;
  /** F: chain id (decimal), number, hash (hex). */
  readonly chainId: string;
  readonly number: number;
  readonly hash: string;
};

type Call = { readonly request: CallRequest; readonly target: CallTarget };

/** What the call worker serves, and the chain stream it follows. */
export type CallWorkerApi = {
  readonly requests: {
    readonly call: { readonly request: Call; readonly reply: CallResult };
    readonly estimate: { readonly request: Call; readonly reply: bigint };
    readonly accessList: { readonly request: Call; readonly reply: AccessListResult };
    /** A trace as JSON text. */
    readonly trace: {
      readonly request: { readonly request: TraceRequest; readonly options: TraceOptions };
      readonly reply: string;
    };
    readonly build: { readonly request: BuildBlockRequest; readonly reply: BuiltPayload };
    readonly simulate: {
      readonly request: { readonly request: SimulateRequest; readonly target: CallTarget };
      readonly reply: SimulatedBlock[];
    };
    /** What its upstream client did so far (a fork's; metrics). */
    readonly upstreamCalls: { readonly request: null; readonly reply: UpstreamSeries[] };
  };
  readonly events: {
    /**
     * The pending block now (its layers' shared memory, not a copy); `sealed`: a block was
     * sealed since the last one (the archive's read snapshot must be refreshed).
     */
    readonly pending: { readonly snapshot: SharedPendingSnapshot; readonly sealed: boolean };
  };
};

/** What the call worker tells the RPC thread: only that it started. */
export type CallParentApi = {
  readonly requests: Record<never, never>;
  readonly events: StartEvents<null>;
};
