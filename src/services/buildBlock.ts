// testing_buildBlockV1's request and answer: a block built from payload attributes on the head,
// stored nowhere (exec/payloadBuilder.ts builds it).

export type Withdrawal = {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Uint8Array;
  /** In gwei. */
  readonly amount: bigint;
};

/** testing_buildBlockV1's block: on `parent` (the head), from the payload attributes. */
export type BuildBlockRequest = {
  readonly parent: number;
  readonly parentHash: Uint8Array;
  readonly timestamp: bigint;
  readonly prevRandao: Uint8Array;
  readonly feeRecipient: Uint8Array;
  /** Undefined: none given (JSON null or absent), which from Shanghai on means an empty list. */
  readonly withdrawals: readonly Withdrawal[] | undefined;
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
  /** Signed transactions; a blob transaction may carry its sidecar (network form). */
  readonly transactions: readonly Uint8Array[];
  /** Taken from the pool: one that cannot run is left out (geth's miner), not an error. */
  readonly fromPool: boolean;
  readonly extraData: Uint8Array;
};

/** The built block, not stored anywhere: what an execution payload envelope is made of. */
export type BuiltPayload = {
  readonly headerRlp: Uint8Array;
  /** As the block holds them (blob transactions without their sidecars). */
  readonly transactions: readonly Uint8Array[];
  readonly withdrawals: readonly Withdrawal[] | undefined;
  /** What the fee recipient earns: the priority fees. */
  readonly blockValue: bigint;
  readonly blobs: {
    readonly commitments: readonly Uint8Array[];
    readonly proofs: readonly Uint8Array[];
    readonly blobs: readonly Uint8Array[];
  };
  /** EIP-7685 requests (type byte ‖ data, empty ones left out); undefined before Prague. */
  readonly requests: readonly Uint8Array[] | undefined;
};
