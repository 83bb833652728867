// The pre-confirmed block of a followed chain, re-executed here, never trusted: each flashblock's
// transactions run on the canonical head's state in the block context of its `base` (so
// eth_call("pending") sees the pending block's number and time), one flashblock on top of the
// last (earlier results kept, not re-executed), and each becomes the FlashblockUpdate readers
// apply, as a dev sequencer's would. A flashblock whose transactions do not run, or whose gas
// disagrees with what the stream said, is refused (FlashblockRejectedError).
import {
  Block,
  type BlockHeader,
  createBlockHeader,
  createBlockHeaderFromRLP,
} from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { type BlockTransaction, decodeBlockTransaction } from "../chain/op/blockTx.ts";
import { bodyTransactions, splitBlockRlp } from "../chain/rawEncoding.ts";
import { encodingOf, hashOf } from "../chain/txFacts.ts";
import type { BlockWrite } from "../chain/types.ts";
import type { BlockExecutor } from "../exec/blockExecutor.ts";
import { bodyRlp } from "../exec/executorCore.ts";
import { includeTransaction } from "../exec/op/opBlock.ts";
import { builderHeader, sealBuilder } from "../exec/vmInternals.ts";
import type { FlashblockUpdate, PendingBase, PendingTransaction } from "../pending/types.ts";
import { assembleFlashblock, Building } from "../sequencer/building.ts";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex, equalBytes } from "../util/hex.ts";
import type { DryRunBlock } from "./discovery.ts";
import type { Flashblock, FlashblockBase } from "./flashblock.ts";
import type { Prefetcher } from "./prefetcher.ts";

/** A canonical block as its RLP carries it: the header decoded, the transactions as bytes. */
export type CanonicalBlock = {
  readonly header: BlockHeader;
  /** The body as stored (`[transactions, uncles, withdrawals?]`). */
  readonly bodyRlp: Uint8Array;
  /** The transactions' binary (EIP-2718) encodings and their hashes, in body order. */
  readonly transactions: readonly Uint8Array[];
  readonly hashes: readonly Uint8Array[];
};

/** A decoded block as a CanonicalBlock (its transactions' kept bytes and hashes). */
function canonicalOf(block: Block): CanonicalBlock {
  return {
    header: block.header,
    bodyRlp: bodyRlp(block),
    transactions: block.transactions.map((tx) => encodingOf(tx)),
    hashes: block.transactions.map((tx) => hashOf(tx)),
  };
}

/** A block's RLP as a CanonicalBlock (its transactions hashed, not decoded). */
export function canonicalBlock(rlp: Uint8Array, common: Common): CanonicalBlock {
  const { headerRlp, bodyRlp } = splitBlockRlp(rlp);
  const header = createBlockHeaderFromRLP(headerRlp, { common, setHardfork: true });
  const transactions = bodyTransactions(bodyRlp);
  return { header, bodyRlp, transactions, hashes: transactions.map((t) => keccak256(t)) };
}

export class FlashblockRejectedError extends FlashnodeError {
  readonly code = "FLASHBLOCK_REJECTED";
}

export class PendingReplay {
  private building: Building | undefined;

  constructor(
    private readonly executor: BlockExecutor,
    private readonly common: Common,
    /** A forked chain's: fetches what a flashblock will read before it runs (prefetcher.ts). */
    private readonly prefetch?: Prefetcher,
  ) {}

  /** Whether a block is being replayed (its builder holds state above the head). */
  get open(): boolean {
    return this.building !== undefined;
  }

  /** Forgets the block being replayed: the executor is back on the canonical head's state. */
  async clear(): Promise<void> {
    const b = this.building;
    this.building = undefined;
    this.prefetch?.resetPending();
    if (b !== undefined) await b.builder.revert();
    await this.executor.resetToHead();
  }

  /**
   * The canonical block `given` (from its RLP, or decoded), from the replay when the replay holds exactly its transactions
   * (what Base's flashblocks pre-confirmed became the block, the usual case): sealed, checked
   * against the header (gas used, receipts, transactions, bloom) and collected for the archive
   * with no second execution, and no decoding of its transactions. undefined: nothing usable was
   * replayed (the replay is cleared); the caller executes the block.
   */
  async sealAs(given: CanonicalBlock | Block): Promise<BlockWrite | undefined> {
    const block = given instanceof Block ? canonicalOf(given) : given;
    const b = this.building;
    const h = block.header;
    const hashes = block.hashes;
    const same =
      b !== undefined &&
      BigInt(b.base.number) === h.number &&
      b.transactions.length === hashes.length &&
      hashes.every((hash, i) => equalBytes(hash, b.transactions[i]!.hash));
    if (!same) {
      await this.clear();
      return undefined;
    }
    this.building = undefined;
    const built = await sealBuilder(b.builder, {
      transactions: b.txTrie.root(),
      receipts: b.receiptTrie.root(),
    });
    const g = built.header;
    if (
      g.gasUsed !== h.gasUsed ||
      !equalBytes(g.receiptTrie, h.receiptTrie) ||
      !equalBytes(g.transactionsTrie, h.transactionsTrie) ||
      !equalBytes(g.logsBloom, h.logsBloom)
    ) {
      await this.executor.resetToHead();
      return undefined;
    }
    // The write of the header alone, given the body as the block carried it: the transactions
    // are the replay's (equal hashes), which the builder holds decoded.
    const shell = new Block(h, [], [], undefined, { common: h.common });
    const write = await this.executor.collectWrite(shell, b.receipts);
    return {
      ...write,
      bodyRlp: block.bodyRlp,
      transactionHashes: [...hashes],
      localStateRoot: g.stateRoot,
    };
  }

  /** Starts block `base.blockNumber` on the head and replays `flashblocks` (index 0 first). */
  async start(
    payloadId: string,
    base: FlashblockBase,
    flashblocks: readonly Flashblock[],
    arrivedAt?: (fb: Flashblock) => number | undefined,
  ): Promise<FlashblockUpdate[]> {
    await this.clear();
    const builder = await this.executor.openBuilder({
      coinbase: base.feeRecipient,
      timestamp: base.timestamp,
      gasLimit: base.gasLimit,
      mixHash: base.prevRandao,
      extraData: base.extraData,
      baseFeePerGas: base.baseFeePerGas,
      parentBeaconBlockRoot: base.parentBeaconBlockRoot,
    });
    const header = builderHeader(builder);
    const excessBlobGas = header.excessBlobGas ?? 0n;
    const pendingBase: PendingBase = {
      number: base.blockNumber,
      parentHash: base.parentHash,
      timestamp: base.timestamp,
      gasLimit: base.gasLimit,
      baseFeePerGas: base.baseFeePerGas,
      coinbase: base.feeRecipient,
      prevRandao: base.prevRandao,
      parentBeaconBlockRoot: base.parentBeaconBlockRoot,
      extraData: base.extraData,
      excessBlobGas,
      blobGasPrice: createBlockHeader(
        { excessBlobGas, number: BigInt(base.blockNumber), timestamp: base.timestamp },
        { common: this.common },
      ).getBlobGasPrice(),
    };
    this.building = new Building(builder, pendingBase, payloadId, performance.now());
    const out: FlashblockUpdate[] = [];
    for (const fb of flashblocks) out.push(await this.extend(fb, arrivedAt?.(fb)));
    return out;
  }

  /**
   * The next flashblock of the block being replayed, on top of the ones before it. `arrivedAt`
   * (epoch ms): when the stream delivered it, the update's publishedAt, so what readers measure
   * as its latency (flashnode_flashblock_visible_seconds) runs from its arrival here.
   */
  async extend(fb: Flashblock, arrivedAt?: number): Promise<FlashblockUpdate> {
    const b = this.building;
    if (b === undefined) throw new FlashblockRejectedError("no pending block to extend");
    const started = performance.now();
    const added: PendingTransaction[] = [];
    const refused = (t: PendingTransaction, e: unknown) =>
      new FlashblockRejectedError(
        `flashblock ${fb.blockNumber}/${fb.index}: transaction ${bytesToHex(t.hash)} does not run on the head: ${(e as Error).message}`,
      );
    const txs: BlockTransaction[] = [];
    for (const t of fb.diff.transactions) {
      try {
        txs.push(decodeBlockTransaction(t.raw, this.common, t.hash));
      } catch (e) {
        throw refused(t, e);
      }
    }
    // What they will read of a forked chain's upstream, fetched before they run.
    await this.prefetch?.prepare(txs, dryRunBlock(b.base), true);
    try {
      for (const [i, t] of fb.diff.transactions.entries()) {
        let receipt: Awaited<ReturnType<typeof includeTransaction>>;
        this.prefetch?.at(i);
        try {
          receipt = await includeTransaction(
            b.builder,
            this.executor.op,
            txs[i]!,
            { baseFee: b.base.baseFeePerGas, blobGasPrice: b.base.blobGasPrice },
            true,
          );
        } catch (e) {
          throw refused(t, e);
        }
        const pending: PendingTransaction = { hash: t.hash, raw: t.raw };
        b.append(pending, receipt, undefined);
        added.push(pending);
      }
    } finally {
      this.prefetch?.finished();
    }
    // The stream's cumulative gas is the builder's: a block that disagrees is not this chain's.
    if (fb.diff.gasUsed !== 0n && fb.diff.gasUsed !== b.builder.gasUsed)
      throw new FlashblockRejectedError(
        `flashblock ${fb.blockNumber}/${fb.index}: gas used ${b.builder.gasUsed} here, ${fb.diff.gasUsed} in the stream`,
      );
    b.resumeAt(fb.index);
    const diff = await this.executor.drainDiff();
    this.prefetch?.applied(diff);
    const update = assembleFlashblock(b, added, diff, started, this.common);
    return arrivedAt === undefined ? update : { ...update, publishedAt: arrivedAt };
  }
}

/** The block a flashblock's transactions run in, for the prefetch step's dry run. */
function dryRunBlock(base: PendingBase): DryRunBlock {
  return {
    number: BigInt(base.number),
    timestamp: base.timestamp,
    coinbase: base.coinbase,
    gasLimit: base.gasLimit,
    baseFeePerGas: base.baseFeePerGas,
    prevRandao: base.prevRandao,
    parentBeaconBlockRoot: base.parentBeaconBlockRoot,
    extraData: base.extraData,
  };
}
