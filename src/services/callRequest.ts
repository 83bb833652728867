// One call as eth_call, eth_estimateGas and eth_createAccessList ask for it (geth's
// TransactionArgs, parsed), where it runs, and what it answers.

export type CallRequest = {
  readonly from: Uint8Array | undefined;
  readonly to: Uint8Array | undefined;
  readonly gas: bigint | undefined;
  readonly gasPrice: bigint | undefined;
  readonly maxFeePerGas: bigint | undefined;
  readonly maxPriorityFeePerGas: bigint | undefined;
  readonly value: bigint | undefined;
  readonly data: Uint8Array | undefined;
  readonly nonce: bigint | undefined;
  readonly accessList:
    | ReadonlyArray<{ address: Uint8Array; storageKeys: Uint8Array[] }>
    | undefined;
  /** EIP-7702 authorizations, making the call a type-4 transaction. */
  readonly authorizationList:
    | ReadonlyArray<{
        chainId: bigint;
        address: Uint8Array;
        nonce: bigint;
        yParity: bigint;
        r: bigint;
        s: bigint;
      }>
    | undefined;
};

/** Where a call runs: a sealed block's state, or the pending block over its parent. */
export type CallTarget = { readonly number: number; readonly pending: boolean };

export type CallResult =
  | { readonly ok: true; readonly returnData: Uint8Array; readonly gasUsed: bigint }
  | {
      readonly ok: false;
      readonly reverted: boolean;
      readonly returnData: Uint8Array;
      readonly error: string;
    };

/** eth_createAccessList's answer: the list, the gas the call used with it, its failure if any. */
export type AccessListResult = {
  readonly accessList: ReadonlyArray<{ address: Uint8Array; storageKeys: Uint8Array[] }>;
  readonly gasUsed: bigint;
  /** The call's error with the list (geth's vm error text), when it failed. */
  readonly error: string | undefined;
};
