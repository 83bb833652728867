// The block being built, put together (run in the sequencer's queue, on the parts it passes):
// opening it on the head (its header fields, its tries, an OP-stack block's opening deposits)
// and executing one transaction onto it (its receipt, its trie entries, its intake time).
import { createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { Blob4844Tx } from "@ethereumjs/tx";
import { calcGasLimit } from "../chain/gasLimit.ts";
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import { encodingOf, hashOf } from "../chain/txFacts.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { placeholderSender } from "../exec/impersonation.ts";
import { includeTransaction } from "../exec/op/opBlock.ts";
import { builderHeader, builderTransactions } from "../exec/vmInternals.ts";
import type { PendingBase, PendingTransaction } from "../pending/types.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import { Building } from "./building.ts";
import type { DepositQueue } from "./deposits.ts";
import type { DevClock } from "./devState.ts";
import type { IntakeTimes } from "./intakeTimes.ts";

const ZERO32 = new Uint8Array(32);

/** What opening a block and executing onto it use of the sequencer (sequencer.ts passes itself). */
export type AssemblyParts = {
  readonly executor: BlockExecutor;
  readonly common: Common;
  readonly opts: { readonly coinbase: Uint8Array; readonly gasLimit: bigint };
  readonly dev: { readonly clock: DevClock; readonly nextBaseFee: bigint | undefined };
  /** When each pooled transaction was submitted: taken as it is included. */
  readonly intake: IntakeTimes;
  /** OP stack: each block's opening deposits. */
  readonly deposits: DepositQueue;
};

/** What a recorded block is rebuilt with: its time and flashblock 0's deposits. */
export type RecordedOpening = {
  readonly timestamp: bigint;
  readonly deposits: readonly Uint8Array[];
  /** A new time: the L1-info deposit is made for it, the user deposits kept. */
  readonly freshL1Info?: boolean;
  /** Rebuilt by a dev method for the n-th time (0: as recorded): part of the payload id. */
  readonly generation?: number;
  /** The payload id it had (a block rebuilt as it was, after a failed step: the same build). */
  readonly payloadId?: string;
};

/** Executes one transaction onto the block being built; throws if it cannot be included. */
export async function includeInBlock(
  seq: AssemblyParts,
  b: Building,
  tx: BlockTransaction,
  allowNoBlobs: boolean,
): Promise<PendingTransaction> {
  // An impersonated sender may be a contract (anvil lets it send).
  const impersonated = isDepositTx(tx) ? undefined : placeholderSender(tx);
  if (impersonated !== undefined) seq.executor.disguise(impersonated);
  let record: Awaited<ReturnType<typeof includeTransaction>>;
  const depth = seq.executor.stateDepth;
  try {
    record = await includeTransaction(
      b.builder,
      seq.executor.op,
      tx,
      { baseFee: b.base.baseFeePerGas, blobGasPrice: b.base.blobGasPrice },
      allowNoBlobs,
    );
  } catch (e) {
    // Not included: the block is as it was before (a throw inside a call frame, a fork's
    // upstream failing, leaves checkpoints open that the library does not revert).
    await seq.executor.undoFailed(depth);
    throw e;
  } finally {
    if (impersonated !== undefined) seq.executor.disguise(undefined);
  }
  // The block holds the tx without its blob sidecar; the builder keeps that form.
  const built = builderTransactions(b.builder);
  const included = built[built.length - 1]!;
  const hash = hashOf(included);
  const receivedAt = seq.intake.take(bytesToHex(hash));
  const pending: PendingTransaction = {
    hash,
    raw: encodingOf(included),
    ...(receivedAt === undefined ? {} : { receivedAt }),
  };
  // Kept while the block is open: a block built from the pool (testing_buildBlockV1) needs it.
  const networkForm =
    tx.type === 3 && (tx as Blob4844Tx).blobs !== undefined
      ? (tx as Blob4844Tx).serializeNetworkWrapper()
      : undefined;
  b.append(pending, record, networkForm);
  return pending;
}

/**
 * Opens the next block; `recorded` rebuilds one whose flashblocks were recorded (its time and
 * flashblock 0's deposits). On an OP-stack chain the block starts with its deposits.
 */
export async function openBlock(
  seq: AssemblyParts,
  recorded: RecordedOpening | undefined,
  openedAt: number,
): Promise<Building> {
  const parent = seq.executor.headBlock();
  const timestamp = recorded?.timestamp ?? seq.dev.clock.take(parent.header.timestamp);
  const prevRandao = keccak256(parent.hash());
  const gasLimit = calcGasLimit(parent.header.gasLimit, seq.opts.gasLimit);
  const builder = await seq.executor.openBuilder({
    coinbase: seq.opts.coinbase,
    timestamp,
    gasLimit,
    mixHash: prevRandao,
    parentBeaconBlockRoot: ZERO32,
    // anvil_setNextBlockBaseFeePerGas: this block's, until it seals.
    ...(seq.dev.nextBaseFee === undefined ? {} : { baseFeePerGas: seq.dev.nextBaseFee }),
  });
  const common = seq.common;
  const headerData = builderHeader(builder);
  const excessBlobGas = headerData.excessBlobGas ?? 0n;
  const base: PendingBase = {
    number: Number(parent.header.number + 1n),
    parentHash: parent.hash(),
    timestamp,
    gasLimit,
    baseFeePerGas: headerData.baseFeePerGas!,
    coinbase: seq.opts.coinbase,
    prevRandao,
    parentBeaconBlockRoot: ZERO32,
    extraData: new Uint8Array(0),
    excessBlobGas,
    blobGasPrice: createBlockHeader(
      { excessBlobGas, number: parent.header.number + 1n, timestamp },
      { common },
    ).getBlobGasPrice(),
  };
  // A payload id as Base's builder makes one: 8 bytes naming this build (a block rebuilt by a
  // dev method gets a new one).
  const generation = recorded?.generation ?? 0;
  const payloadId =
    recorded?.payloadId ??
    bytesToHex(
      keccak256(
        hexToBytes(
          `${bytesToHex(base.parentHash)}${timestamp.toString(16).padStart(16, "0")}${generation === 0 ? "" : generation.toString(16).padStart(8, "0")}`,
        ),
      ).subarray(0, 8),
    );
  const b = new Building(builder, base, payloadId, openedAt);
  if (seq.executor.op !== undefined) {
    for (const tx of seq.deposits.opening(timestamp, recorded?.deposits, recorded?.freshL1Info))
      await includeInBlock(seq, b, tx, false);
  }
  return b;
}
