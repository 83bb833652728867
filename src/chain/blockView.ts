// Stored blocks decoded into plain views for the RPC layer (which never sees the EVM library).
import { type BlockHeader, createBlockHeaderFromRLP } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import type { TypedTransaction } from "@ethereumjs/tx";
import { keccak256 } from "../util/crypto.ts";
import { bytesToBigInt, hexToBytes } from "../util/hex.ts";
import { decodeBlockTransaction } from "./op/blockTx.ts";
import { type DepositTx, isDepositTx } from "./op/depositTx.ts";

export type HeaderView = {
  readonly hash: Uint8Array;
  readonly parentHash: Uint8Array;
  readonly uncleHash: Uint8Array;
  readonly coinbase: Uint8Array;
  readonly stateRoot: Uint8Array;
  readonly transactionsTrie: Uint8Array;
  readonly receiptTrie: Uint8Array;
  readonly logsBloom: Uint8Array;
  readonly difficulty: bigint;
  readonly number: bigint;
  readonly gasLimit: bigint;
  readonly gasUsed: bigint;
  readonly timestamp: bigint;
  readonly extraData: Uint8Array;
  readonly mixHash: Uint8Array;
  readonly nonce: Uint8Array;
  readonly baseFeePerGas: bigint | undefined;
  readonly withdrawalsRoot: Uint8Array | undefined;
  readonly blobGasUsed: bigint | undefined;
  readonly excessBlobGas: bigint | undefined;
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
  readonly requestsHash: Uint8Array | undefined;
};

export type AccessListView = ReadonlyArray<{
  address: Uint8Array;
  storageKeys: readonly Uint8Array[];
}>;

export type AuthorizationView = {
  readonly chainId: bigint;
  readonly address: Uint8Array;
  readonly nonce: bigint;
  readonly yParity: bigint;
  readonly r: bigint;
  readonly s: bigint;
};

export type TransactionView = {
  readonly type: number;
  readonly hash: Uint8Array;
  readonly nonce: bigint;
  readonly gasLimit: bigint;
  readonly to: Uint8Array | undefined;
  readonly value: bigint;
  readonly input: Uint8Array;
  /** Set for typed transactions and EIP-155 protected legacy ones. */
  readonly chainId: bigint | undefined;
  readonly gasPrice: bigint | undefined;
  readonly maxFeePerGas: bigint | undefined;
  readonly maxPriorityFeePerGas: bigint | undefined;
  readonly maxFeePerBlobGas: bigint | undefined;
  readonly accessList: AccessListView | undefined;
  readonly blobVersionedHashes: readonly Uint8Array[] | undefined;
  readonly authorizationList: readonly AuthorizationView[] | undefined;
  readonly v: bigint;
  readonly r: bigint;
  readonly s: bigint;
  /** OP-stack deposits (type 0x7e) only. */
  readonly deposit?: DepositView | undefined;
};

export type DepositView = {
  readonly sourceHash: Uint8Array;
  readonly from: Uint8Array;
  readonly mint: bigint;
  readonly isSystemTx: boolean;
};

export type WithdrawalView = {
  readonly index: bigint;
  readonly validatorIndex: bigint;
  readonly address: Uint8Array;
  readonly amount: bigint;
};

export type BlockView = {
  readonly header: HeaderView;
  readonly size: number;
  readonly transactions: readonly TransactionView[];
  readonly uncleHashes: readonly Uint8Array[];
  readonly withdrawals: readonly WithdrawalView[] | undefined;
};

export function headerView(h: BlockHeader): HeaderView {
  return {
    hash: h.hash(),
    parentHash: h.parentHash,
    uncleHash: h.uncleHash,
    coinbase: h.coinbase.bytes,
    stateRoot: h.stateRoot,
    transactionsTrie: h.transactionsTrie,
    receiptTrie: h.receiptTrie,
    logsBloom: h.logsBloom,
    difficulty: h.difficulty,
    number: h.number,
    gasLimit: h.gasLimit,
    gasUsed: h.gasUsed,
    timestamp: h.timestamp,
    extraData: h.extraData,
    mixHash: h.mixHash,
    nonce: h.nonce,
    baseFeePerGas: h.baseFeePerGas,
    withdrawalsRoot: h.withdrawalsRoot,
    blobGasUsed: h.blobGasUsed,
    excessBlobGas: h.excessBlobGas,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    requestsHash: h.requestsHash,
  };
}

function depositView(tx: DepositTx): TransactionView {
  return {
    type: tx.type,
    hash: tx.hash(),
    nonce: 0n,
    gasLimit: tx.gasLimit,
    to: tx.to?.bytes,
    value: tx.value,
    input: tx.data,
    chainId: undefined,
    gasPrice: 0n,
    maxFeePerGas: undefined,
    maxPriorityFeePerGas: undefined,
    maxFeePerBlobGas: undefined,
    accessList: undefined,
    blobVersionedHashes: undefined,
    authorizationList: undefined,
    v: 0n,
    r: 0n,
    s: 0n,
    deposit: {
      sourceHash: tx.sourceHash,
      from: tx.from.bytes,
      mint: tx.mint,
      isSystemTx: tx.isSystemTx,
    },
  };
}

function transactionView(tx: TypedTransaction | DepositTx): TransactionView {
  if (isDepositTx(tx)) return depositView(tx);
  const t = tx as TypedTransaction & {
    gasPrice?: bigint;
    maxFeePerGas?: bigint;
    maxPriorityFeePerGas?: bigint;
    maxFeePerBlobGas?: bigint;
    accessList?: [Uint8Array, Uint8Array[]][];
    /** @ethereumjs/tx 10 keeps them as 0x-hex strings. */
    blobVersionedHashes?: string[];
    authorizationList?: Uint8Array[][];
    chainId?: bigint;
  };
  // A legacy transaction's chain id lives in v (EIP-155: v = 2·id + 35/36); 27/28 = unprotected.
  const v = tx.v ?? 0n;
  const legacyChainId = v >= 35n ? (v - 35n) / 2n : undefined;
  return {
    type: tx.type,
    hash: tx.hash(),
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    to: tx.to?.bytes,
    value: tx.value,
    input: tx.data,
    chainId: tx.type === 0 ? legacyChainId : t.chainId,
    gasPrice: t.gasPrice,
    maxFeePerGas: t.maxFeePerGas,
    maxPriorityFeePerGas: t.maxPriorityFeePerGas,
    maxFeePerBlobGas: t.maxFeePerBlobGas,
    accessList: t.accessList?.map(([address, storageKeys]) => ({ address, storageKeys })),
    blobVersionedHashes: t.blobVersionedHashes?.map((h) => hexToBytes(h)),
    authorizationList: t.authorizationList?.map((a) => ({
      chainId: bytesToBigInt(a[0]!),
      address: a[1]!,
      nonce: bytesToBigInt(a[2]!),
      yParity: bytesToBigInt(a[3]!),
      r: bytesToBigInt(a[4]!),
      s: bytesToBigInt(a[5]!),
    })),
    v: tx.v ?? 0n,
    r: tx.r ?? 0n,
    s: tx.s ?? 0n,
  };
}

/** Byte length of an RLP list header for a payload of `length` bytes. */
export function listPrefixLength(length: number): number {
  if (length < 56) return 1;
  let bytes = 0;
  for (let n = length; n > 0; n = Math.floor(n / 256)) bytes++;
  return 1 + bytes;
}

export function stringPrefixLength(length: number): number {
  return length === 1 ? 0 : listPrefixLength(length);
}

/**
 * A header for display. Consensus rules are not checked again: stored headers passed them on the
 * way in, and a block testing_buildBlockV1 builds need not (geth checks none there either).
 */
export function decodeHeader(common: Common, headerRlp: Uint8Array): HeaderView {
  return headerView(
    createBlockHeaderFromRLP(headerRlp, {
      common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    }),
  );
}

export function decodeBlock(common: Common, headerRlp: Uint8Array, bodyRlp: Uint8Array): BlockView {
  const header = createBlockHeaderFromRLP(headerRlp, { common, setHardfork: true });
  const body = RLP.decode(bodyRlp) as unknown as [Uint8Array[], Uint8Array[][], Uint8Array[][]?];
  const txs = body[0].map((raw) => transactionView(decodeBlockTransaction(raw, header.common)));
  const first = bodyRlp[0]!;
  const bodyPayload = bodyRlp.length - (first <= 0xf7 ? 1 : 1 + first - 0xf7);
  const payload = headerRlp.length + bodyPayload;
  const uncleHashes = body[1].map((raw) => keccak256(RLP.encode(raw)));
  return {
    header: headerView(header),
    size: listPrefixLength(payload) + payload,
    transactions: txs,
    uncleHashes,
    withdrawals: body[2]?.map((w) => ({
      index: bytesToBigInt(w[0]!),
      validatorIndex: bytesToBigInt(w[1]!),
      address: w[2]!,
      amount: bytesToBigInt(w[3]!),
    })),
  };
}

export function decodeTransaction(common: Common, raw: Uint8Array): TransactionView {
  return transactionView(decodeBlockTransaction(raw, common));
}

/** EIP-1559's base fee of the first London block (geth's params.InitialBaseFee). */
const INITIAL_BASE_FEE = 1_000_000_000n;

export type FeeView = {
  readonly baseFee: bigint | undefined;
  readonly nextBaseFee: bigint | undefined;
  readonly blobBaseFee: bigint | undefined;
  readonly nextBlobBaseFee: bigint | undefined;
  readonly gasUsed: bigint;
  readonly gasLimit: bigint;
  readonly blobGasUsed: bigint | undefined;
  readonly maxBlobGas: bigint | undefined;
};

/** The fee-market facts of a block and of the block that follows it. */
export function decodeFees(common: Common, headerRlp: Uint8Array): FeeView {
  const h = createBlockHeaderFromRLP(headerRlp, { common, setHardfork: true });
  const london = h.common.isActivatedEIP(1559);
  const cancun = h.common.isActivatedEIP(4844);
  // The block before London: the next one is the first with a base fee (geth's CalcBaseFee).
  const londonNext = !london && h.common.hardforkIsActiveOnBlock("london", h.number + 1n);
  return {
    baseFee: h.baseFeePerGas,
    nextBaseFee: london ? h.calcNextBaseFee() : londonNext ? INITIAL_BASE_FEE : undefined,
    blobBaseFee: cancun ? h.getBlobGasPrice() : undefined,
    nextBlobBaseFee: cancun ? h.calcNextBlobGasPrice(h.common) : undefined,
    gasUsed: h.gasUsed,
    gasLimit: h.gasLimit,
    blobGasUsed: h.blobGasUsed,
    maxBlobGas: cancun ? BigInt(h.common.getBlobGasSchedule().maxBlobGasPerBlock) : undefined,
  };
}
