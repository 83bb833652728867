// What the pool holds, as txpool_* and testing_buildBlockV1 see it. As in geth, a transaction
// leaves the pool when a sealed block includes it: the pre-confirmed transactions of the block
// being built are still pool transactions (geth's pending block is built from its pool the same
// way), and come first, in block order. Then the waiting ones: a sender's run of nonces from its
// nonce after the pre-confirmed block is pending, what follows a gap is queued.
import type { Blob4844Tx, TypedTransaction } from "@ethereumjs/tx";
import { DEPOSIT_TX_TYPE } from "../chain/op/depositTx.ts";
import type { PoolContent, PoolTransaction } from "../services/transactions.ts";
import { bytesToHex } from "../util/hex.ts";
import type { Building } from "./building.ts";
import type { TxPool } from "./txPool.ts";

function waiting(sender: Uint8Array, tx: TypedTransaction): PoolTransaction {
  const blobs = tx.type === 3 && (tx as Blob4844Tx).blobs !== undefined;
  return {
    sender,
    raw: tx.serialize(),
    ...(blobs ? { withSidecar: (tx as Blob4844Tx).serializeNetworkWrapper() } : {}),
  };
}

export async function poolContent(
  building: Building | undefined,
  pool: TxPool,
  nonceNow: (sender: Uint8Array) => Promise<bigint>,
): Promise<PoolContent> {
  const pending: PoolTransaction[] = [];
  const queued: PoolTransaction[] = [];
  if (building !== undefined) {
    for (const [i, t] of building.transactions.entries()) {
      // An OP-stack block's deposits come from L1, never from the pool.
      if (t.raw[0] === DEPOSIT_TX_TYPE) continue;
      const sidecar = building.sidecars.get(bytesToHex(t.hash));
      pending.push({
        sender: building.receipts[i]!.from,
        raw: t.raw,
        ...(sidecar === undefined ? {} : { withSidecar: sidecar }),
      });
    }
  }
  for (const { sender, transactions } of pool.list()) {
    let next = await nonceNow(sender);
    for (const tx of transactions) {
      // Below the nonce: already spent (it goes at the next execution); not shown.
      if (tx.nonce < next) continue;
      if (tx.nonce === next) {
        pending.push(waiting(sender, tx));
        next++;
      } else queued.push(waiting(sender, tx));
    }
  }
  return { pending, queued };
}
