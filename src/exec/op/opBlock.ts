// Executing an OP-stack block for import: through the same BlockBuilder path the dev sequencer
// builds blocks with (deposits by the deposit runner, the rest by the library's runTx with the
// L1 fee hooked in), so importer and sequencer agree bit for bit. Returns the receipts and the
// block as execution rebuilt it; the caller compares its header with the imported one.
import type { Block, HeaderData } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import type { BlockBuilder } from "@ethereumjs/vm";
import { ListTrie } from "../../chain/listTrie.ts";
import type { BlockTransaction } from "../../chain/op/blockTx.ts";
import { isDepositTx } from "../../chain/op/depositTx.ts";
import { receiptRlp } from "../../chain/rawEncoding.ts";
import { encodingOf } from "../../chain/txFacts.ts";
import type { ReceiptRecord } from "../../chain/types.ts";
import { receiptRecord } from "../receipts.ts";
import { addDeposit, addTransaction, sealBuilder } from "../vmInternals.ts";
import type { OpExecution } from "./opExecution.ts";

/** One transaction onto the block being built, with its receipt (sequencer and importer alike). */
export async function includeTransaction(
  builder: BlockBuilder,
  op: OpExecution | undefined,
  tx: BlockTransaction,
  ctx: { readonly baseFee: bigint | undefined; readonly blobGasPrice: bigint | undefined },
  allowNoBlobs: boolean,
): Promise<ReceiptRecord> {
  const previousCumulative = builder.gasUsed;
  if (isDepositTx(tx)) {
    if (op === undefined) throw new Error("deposit transactions exist only on OP-stack chains");
    const result = await addDeposit(builder, tx, op);
    return receiptRecord(tx, result.receipt as never, {
      ...ctx,
      previousCumulative,
      op: { l1Fee: undefined, depositNonce: result.depositNonce, canyon: op.rulesNow().canyon },
    });
  }
  const result = await addTransaction(builder, tx as TypedTransaction, allowNoBlobs);
  return receiptRecord(tx, result.receipt, {
    ...ctx,
    previousCumulative,
    ...(op === undefined
      ? {}
      : { op: { l1Fee: op.l1FeeOf(tx), depositNonce: undefined, canyon: op.rulesNow().canyon } }),
  });
}

export async function runOpBlock(
  block: Block,
  openBuilder: (headerData: HeaderData) => Promise<BlockBuilder>,
  op: OpExecution,
  common: Common,
): Promise<{ built: Block; receipts: ReceiptRecord[] }> {
  const h = block.header;
  const builder = await openBuilder({
    coinbase: h.coinbase,
    timestamp: h.timestamp,
    gasLimit: h.gasLimit,
    mixHash: h.mixHash,
    extraData: h.extraData,
    ...(h.baseFeePerGas === undefined ? {} : { baseFeePerGas: h.baseFeePerGas }),
    ...(h.excessBlobGas === undefined ? {} : { excessBlobGas: h.excessBlobGas }),
    ...(h.parentBeaconBlockRoot === undefined
      ? {}
      : { parentBeaconBlockRoot: h.parentBeaconBlockRoot }),
  });
  try {
    const txTrie = new ListTrie();
    const receiptTrie = new ListTrie();
    const ctx = {
      baseFee: h.baseFeePerGas,
      blobGasPrice: common.isActivatedEIP(4844) ? h.getBlobGasPrice() : undefined,
    };
    const receipts: ReceiptRecord[] = [];
    for (const tx of block.transactions as BlockTransaction[]) {
      const receipt = await includeTransaction(builder, op, tx, ctx, true);
      receipts.push(receipt);
      txTrie.push(encodingOf(tx));
      receiptTrie.push(receiptRlp(receipt));
    }
    const built = await sealBuilder(builder, {
      transactions: txTrie.root(),
      receipts: receiptTrie.root(),
    });
    return { built, receipts };
  } catch (e) {
    await builder.revert();
    throw e;
  }
}
