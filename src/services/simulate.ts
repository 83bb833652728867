// eth_simulateV1's request and result as plain data (they cross to the call worker and back):
// geth's simOpts / simBlock / override.StateOverride / override.BlockOverrides, parsed.
import type { BlockView } from "../chain/blockView.ts";
import type { CallRequest } from "./callRequest.ts";

/** eth_simulateV1 (geth's internal/ethapi/simulate.go): blocks past the base, calls a block, calls. */
export const MAX_SIMULATE_BLOCKS = 256;
export const MAX_SIMULATE_CALLS_PER_BLOCK = 5000;
export const MAX_SIMULATE_TOTAL_CALLS = 10000;

/** geth's TransactionArgs as eth_simulateV1 takes them (eth_call's plus chain id and blobs). */
export type SimulateCall = CallRequest & {
  readonly chainId: bigint | undefined;
  readonly maxFeePerBlobGas: bigint | undefined;
  readonly blobVersionedHashes: readonly Uint8Array[] | undefined;
};

/** One account of a state override (override.OverrideAccount). */
export type AccountOverride = {
  readonly nonce: bigint | undefined;
  readonly code: Uint8Array | undefined;
  readonly balance: bigint | undefined;
  /** Replaces the whole storage. */
  readonly state: ReadonlyArray<readonly [slot: Uint8Array, value: Uint8Array]> | undefined;
  /** Written over the storage. */
  readonly stateDiff: ReadonlyArray<readonly [slot: Uint8Array, value: Uint8Array]> | undefined;
  readonly movePrecompileToAddress: Uint8Array | undefined;
};

export type StateOverrides = ReadonlyArray<readonly [address: Uint8Array, AccountOverride]>;

export type WithdrawalOverride = {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Uint8Array;
  /** In gwei. */
  readonly amount: bigint;
};

/** override.BlockOverrides: header fields of a simulated block. */
export type BlockOverrides = {
  readonly number: bigint | undefined;
  readonly difficulty: bigint | undefined;
  readonly time: bigint | undefined;
  readonly gasLimit: bigint | undefined;
  readonly feeRecipient: Uint8Array | undefined;
  readonly prevRandao: Uint8Array | undefined;
  readonly baseFeePerGas: bigint | undefined;
  readonly blobBaseFee: bigint | undefined;
  readonly beaconRoot: Uint8Array | undefined;
  readonly withdrawals: readonly WithdrawalOverride[] | undefined;
};

export type SimulateBlock = {
  readonly blockOverrides: BlockOverrides | undefined;
  readonly stateOverrides: StateOverrides | undefined;
  readonly calls: readonly SimulateCall[];
};

export type SimulateRequest = {
  readonly blocks: readonly SimulateBlock[];
  readonly traceTransfers: boolean;
  readonly validation: boolean;
  readonly returnFullTransactions: boolean;
};

/** A log of a simulated call; its block and transaction fields come from the block. */
export type SimulatedLog = {
  readonly address: Uint8Array;
  readonly topics: readonly Uint8Array[];
  readonly data: Uint8Array;
  readonly logIndex: number;
};

export type SimulatedCall = {
  readonly status: 0 | 1;
  readonly returnData: Uint8Array;
  readonly gasUsed: bigint;
  readonly maxUsedGas: bigint;
  readonly logs: readonly SimulatedLog[];
  /** A revert is code 3 with its data; other EVM failures -32015 (geth's callError). */
  readonly error:
    | { readonly message: string; readonly code: number; readonly data?: string }
    | undefined;
};

export type SimulatedBlock = {
  readonly block: BlockView;
  /** The calls' senders, in order (the transactions are unsigned). */
  readonly senders: readonly Uint8Array[];
  readonly calls: readonly SimulatedCall[];
};
