// A transaction taken into the sequencer's pool (run in its queue): decoded, its sender found
// (a placeholder signature stands for an impersonated sender), validated against the block being
// built as geth's pool validates. An OP-stack deposit waits for the next block's start instead.
import type { Common } from "@ethereumjs/common";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.ts";
import { encodingOf, senderOf } from "../chain/txFacts.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { decodeRawTransaction } from "../exec/decodeTransaction.ts";
import { placeholderSender, withPlaceholderSender } from "../exec/impersonation.ts";
import { TxRejectedError } from "../services/transactions.ts";
import { bytesToHex } from "../util/hex.ts";
import type { Building } from "./building.ts";
import type { DepositQueue } from "./deposits.ts";
import type { DevState } from "./devState.ts";
import type { IntakeTimes } from "./intakeTimes.ts";
import type { MiningMode } from "./mining.ts";
import type { TxPool } from "./txPool.ts";

export type SubmitResult = {
  readonly hash: string;
  readonly sender: Uint8Array;
  /** The transaction's own nonce (logged: a nonce gap is the usual reason it does not run). */
  readonly nonce: bigint;
  readonly nextNonce: bigint;
};

/** What the intake uses of the sequencer (sequencer.ts passes itself). */
export type IntakeParts = {
  readonly pool: TxPool;
  readonly executor: BlockExecutor;
  readonly common: Common;
  readonly dev: DevState;
  readonly intake: IntakeTimes;
  readonly deposits: DepositQueue;
  readonly mining: MiningMode;
  /** The block being built, if the sequencer runs. */
  building(): Building | undefined;
  tick(forceSeal?: boolean): Promise<void>;
};

/**
 * Validates `raw` and adds it to the pool. `unsigned` (eth_sendUnsignedTransaction): a
 * placeholder signature stands for its sender whether or not that sender is impersonated.
 */
export async function acceptTransaction(
  seq: IntakeParts,
  raw: Uint8Array,
  receivedAt: number,
  unsigned: boolean,
): Promise<SubmitResult> {
  if (seq.executor.op !== undefined) {
    // Reaches here only from flashnode_depositTransaction: eth_sendRawTransaction refuses 0x7e.
    if (raw[0] === DEPOSIT_TX_TYPE) return queueDeposit(seq, raw);
    // Blob transactions do not exist on an OP-stack chain (op-geth's pool refuses them).
    if (raw[0] === 3) throw new TxRejectedError("transaction type not supported");
  }
  let tx = decodeRawTransaction(raw, seq.common);
  // A placeholder signature (src/exec/impersonation.ts) stands for its sender only while that
  // sender is impersonated (or for this one transaction); otherwise it is refused as any bad
  // signature is.
  const named = placeholderSender(tx);
  if (named !== undefined && (unsigned || seq.dev.isImpersonated(named)))
    tx = withPlaceholderSender(tx, seq.common);
  const building = seq.building();
  if (building === undefined) throw new TxRejectedError("sequencer is not running");
  let sender: Uint8Array;
  try {
    sender = senderOf(tx).bytes;
  } catch (e) {
    throw new TxRejectedError(`invalid sender: ${(e as Error).message}`);
  }
  const account = await seq.executor.currentAccount(sender);
  const sealedNonce = (await seq.executor.sealedAccount(sender))?.nonce ?? 0n;
  const l1Cost = (await seq.executor.op?.l1FeeFor(tx, encodingOf(tx)))?.l1Fee;
  // The size limit is on the transaction itself; a blob sidecar is carried beside it.
  const size = tx.type === 3 ? encodingOf(tx).length : raw.length;
  const { hash } = seq.pool.add(tx, size, {
    common: seq.common,
    baseFee: building.base.baseFeePerGas,
    blockGasLimit: building.base.gasLimit,
    account: () => account,
    sealedNonce: () => sealedNonce,
    ...(l1Cost === undefined ? {} : { l1Cost }),
  });
  seq.intake.set(hash, receivedAt);
  return {
    hash,
    sender,
    nonce: tx.nonce,
    nextNonce: seq.pool.nextNonce(sender, account?.nonce ?? 0n),
  };
}

/**
 * A user deposit runs at the start of the next block, after its L1-info deposit. With automine,
 * the block being built is sealed, then the deposit's own block.
 */
async function queueDeposit(seq: IntakeParts, raw: Uint8Array): Promise<SubmitResult> {
  const tx = seq.deposits.accept(raw);
  if (seq.mining.automine) {
    await seq.tick(true);
    await seq.tick(true);
  }
  return { hash: bytesToHex(tx.hash()), sender: tx.from.bytes, nonce: 0n, nextNonce: 0n };
}
