// Messages between the RPC thread and the sequencer worker. Plain data only.
import type { ForwardedLevel } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { StreamOptions } from "../replica/streams.ts";
import type { DevAnswer, DevRequest, PoolContent } from "../services/transactions.ts";

export type SequencerWorkerData = {
  readonly datadir: string;
  /** Genesis to create the chain with when the datadir is empty. */
  readonly genesis: Record<string, unknown>;
  /**
   * The genesis came from --genesis: a datadir holding a chain from another genesis is refused
   * (without it, whatever chain the datadir holds is continued: dev's own, or an imported one).
   */
  readonly genesisGiven: boolean;
  readonly blockTimeMs: number;
  readonly flashblockIntervalMs: number;
  /** The gas limit blocks move towards (decimal). */
  readonly gasLimit: string;
  readonly coinbase: string;
  /** OP-stack chains: the simulated L1 (wei amounts as decimal strings). */
  readonly l1?: {
    readonly baseFee: string;
    readonly blobBaseFee: string;
    readonly baseFeeScalar: number;
    readonly blobBaseFeeScalar: number;
  };
  /**
   * `dev --nats`: this thread publishes the chain to JetStream (src/replica/publisher.ts) as it
   * builds it, with no hop through the RPC thread; its log records go to the RPC thread's log.
   */
  readonly nats?: {
    readonly servers: readonly string[];
    readonly streams: StreamOptions;
    readonly logLevel: string;
  };
};

export type ToWorker =
  | { readonly type: "submit"; readonly id: number; readonly raw: Uint8Array }
  | { readonly type: "mine"; readonly id: number }
  | { readonly type: "pool"; readonly id: number }
  | { readonly type: "control"; readonly id: number; readonly request: DevRequest }
  | { readonly type: "stop" };

export type FromWorker =
  /** `resumed`: the datadir already held a chain, continued from `head`. */
  | { readonly type: "ready"; readonly head: number; readonly resumed: boolean }
  /** `code`: an operator's error (a class with a code, as SchemaMismatchError), kept as such. */
  | { readonly type: "failed"; readonly message: string; readonly code?: string }
  | {
      readonly type: "submitted";
      readonly id: number;
      readonly hash: string;
      readonly sender: Uint8Array;
      readonly nonce: bigint;
      readonly nextNonce: bigint;
    }
  /** `rpcCode`: the JSON-RPC code when not -32000 (a dev request's bad argument). */
  | {
      readonly type: "rejected";
      readonly id: number;
      readonly message: string;
      readonly rpcCode?: number;
    }
  | { readonly type: "controlled"; readonly id: number; readonly answer: DevAnswer }
  | { readonly type: "mined"; readonly id: number; readonly number: number }
  | { readonly type: "pool"; readonly id: number; readonly content: PoolContent }
  | { readonly type: "update"; readonly update: FlashblockUpdate | SealedUpdate }
  | { readonly type: "stopped" }
  | {
      readonly type: "log";
      readonly level: ForwardedLevel;
      readonly msg: string;
      readonly fields: Record<string, unknown>;
    };
