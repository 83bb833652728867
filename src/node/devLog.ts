// What a developer watches `dev` do (anvil prints the same): each transaction as it is
// pre-confirmed, with the contract it created, and each block sealed with transactions; an idle
// chain's empty blocks and flashblocks only at debug. An OP-stack block's L1-info deposit is the
// chain's own bookkeeping: not logged, not counted.
import { DEPOSITOR_ACCOUNT } from "../chain/op/config.ts";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.ts";
import type { ReceiptRecord } from "../chain/types.ts";
import type { Logger } from "../log/logger.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { bytesToHex, equalBytes } from "../util/hex.ts";
import type { UpdateStream } from "./updateStream.ts";

/** The L1-info deposit opening every OP-stack block (not a developer's transaction). */
function isL1InfoReceipt(r: ReceiptRecord): boolean {
  return r.type === DEPOSIT_TX_TYPE && equalBytes(r.from, DEPOSITOR_ACCOUNT);
}

/** Logs the chain's updates as they come; returns the stop. */
export function logDevChain(stream: UpdateStream, store: ChainStore, logger: Logger): () => void {
  const flashblockLog = logger.child({ module: "pending" });
  const sealLog = logger.child({ module: "chain" });
  // A reverted deployment's receipt still names an address (as geth's does), but nothing was
  // created there: not logged as a contract.
  const preconfirmed = (fb: FlashblockUpdate) => {
    if (fb.receipts.length === 0 || !flashblockLog.isLevelEnabled("info")) return;
    for (const r of fb.receipts) {
      if (isL1InfoReceipt(r)) continue;
      const created = r.status === 0 ? undefined : r.contractAddress;
      flashblockLog.info(
        {
          hash: bytesToHex(r.transactionHash),
          from: bytesToHex(r.from),
          status: r.status === 0 ? "reverted" : "success",
          gasUsed: Number(r.gasUsed),
          ...(created === undefined ? {} : { contract: bytesToHex(created) }),
          block: fb.base.number,
          flashblock: fb.index,
        },
        created === undefined ? "transaction pre-confirmed" : "contract created",
      );
    }
  };
  const sealed = (u: SealedUpdate) => {
    // The sequencer committed the block before it sent this: this thread's snapshot may be older.
    store.env.refresh();
    const receipts = store.receipts(u.number, u.hash);
    if (receipts === undefined) return;
    const line = {
      block: u.number,
      hash: bytesToHex(u.hash),
      transactions: receipts.receipts.filter((r) => !isL1InfoReceipt(r)).length,
      gasUsed: Number(receipts.receipts.at(-1)?.cumulativeGasUsed ?? 0n),
    };
    if (line.transactions === 0) sealLog.debug(line, "sealed");
    else sealLog.info(line, "sealed");
  };
  return stream.subscribe((u, catchUp) => {
    if (catchUp) return;
    const fb = u.kind === "flashblock" ? u : u.next;
    if (u.kind === "sealed" && u.reverted === undefined) sealed(u);
    preconfirmed(fb);
    flashblockLog.debug(
      {
        block: fb.base.number,
        index: fb.index,
        transactions: fb.transactions.length,
        buildMs: fb.buildMs,
      },
      "flashblock",
    );
  });
}
