// The dev chain's signing keys (eth_accounts, eth_sign…, eth_sendTransaction), implemented in
// exec/devSigner.ts.
import type { CallRequest } from "./callRequest.ts";

/** A transaction to sign (eth_sendTransaction, eth_signTransaction), every field filled. */
export type UnsignedTransaction = {
  /** 0 legacy (EIP-155), 1 access list, 2 dynamic fee, 4 set code. */
  readonly type: 0 | 1 | 2 | 4;
  readonly chainId: bigint;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly data: Uint8Array;
  readonly gasPrice: bigint | undefined;
  readonly maxFeePerGas: bigint | undefined;
  readonly maxPriorityFeePerGas: bigint | undefined;
  readonly accessList: CallRequest["accessList"];
  readonly authorizationList: CallRequest["authorizationList"];
};

/** The keys of the dev chain's test accounts (eth_accounts, eth_sign…, eth_sendTransaction). */
export type DevSigner = {
  /** The accounts it holds keys for, in order. */
  readonly accounts: readonly Uint8Array[];
  canSign(address: Uint8Array): boolean;
  /** The signed transaction's 2718 encoding; the block in view picks the rules. */
  signTransaction(from: Uint8Array, tx: UnsignedTransaction, at: BlockAt): Uint8Array;
  /** The encoding of an impersonated sender's transaction (src/exec/impersonation.ts). */
  placeholderTransaction(from: Uint8Array, tx: UnsignedTransaction, at: BlockAt): Uint8Array;
  /** EIP-191 (eth_sign, personal_sign): r ‖ s ‖ v, v 27 or 28. */
  signMessage(address: Uint8Array, message: Uint8Array): Uint8Array;
  /** EIP-712 (eth_signTypedData_v4), of typed data as JSON; r ‖ s ‖ v. */
  signTypedData(address: Uint8Array, typedData: unknown): Uint8Array;
};

/** The block whose fork rules a transaction is made under. */
export type BlockAt = { readonly number: bigint; readonly timestamp: bigint };
