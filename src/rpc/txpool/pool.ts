// What the txpool_* methods share: the sequencer's pool, grouped as geth's TxPoolAPI groups it
// (sender → nonce → transaction). geth's blob pool lists nothing of its content (only its counts
// reach txpool_status): blob transactions are left out of the listings here too.
import { toChecksumAddress } from "@ethereumjs/util";
import type { TransactionView } from "../../chain/blockView.ts";
import type { RpcBackend } from "../../services/backend.ts";
import { ServerError } from "../../services/errors.ts";
import type { PoolContent, PoolTransaction } from "../../services/transactions.ts";
import { bytesToHex, bytesToUnprefixedHex } from "../../util/hex.ts";
import { transactionSink } from "../eth/sendRawTransaction.ts";

/** A node that forwards transactions to the sequencer (a replica) keeps no pool of its own. */
export const NO_POOL_MESSAGE =
  "the transaction pool is not served by this node: it forwards transactions to the sequencer";

export async function poolOf(backend: RpcBackend): Promise<PoolContent> {
  const sink = transactionSink(backend);
  if (sink.poolContent === undefined) throw new ServerError(NO_POOL_MESSAGE);
  return sink.poolContent();
}

export type PoolEntry = { readonly from: Uint8Array; readonly tx: TransactionView };

/** Decoded, blob transactions left out (as geth's blob pool does in its content). */
export function listed(backend: RpcBackend, txs: readonly PoolTransaction[]): PoolEntry[] {
  const out: PoolEntry[] = [];
  for (const t of txs) {
    if (t.raw[0] !== 3) out.push({ from: t.sender, tx: backend.decoder.transaction(t.raw) });
  }
  return out;
}

/** geth's map keys as encoding/json writes them: sorted. */
function sortedKeys<T>(map: ReadonlyMap<string, T>): Array<[string, T]> {
  return [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** {nonce: rendered} for one sender's transactions (nonces in decimal, as geth's keys). */
export function byNonce(entries: readonly PoolEntry[], render: (e: PoolEntry) => string): string {
  const map = new Map(entries.map((e) => [e.tx.nonce.toString(), render(e)] as const));
  return `{${sortedKeys(map)
    .map(([k, v]) => `"${k}":${v}`)
    .join(",")}}`;
}

/** {checksummed sender: {nonce: rendered}} */
export function bySender(entries: readonly PoolEntry[], render: (e: PoolEntry) => string): string {
  const groups = new Map<string, PoolEntry[]>();
  for (const e of entries) {
    const key = toChecksumAddress(bytesToHex(e.from));
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [e]);
    else group.push(e);
  }
  return `{${sortedKeys(groups)
    .map(([k, group]) => `"${k}":${byNonce(group, render)}`)
    .join(",")}}`;
}

/** One sender's entries. */
export function fromSender(entries: readonly PoolEntry[], sender: Uint8Array): PoolEntry[] {
  const key = bytesToUnprefixedHex(sender);
  return entries.filter((e) => bytesToUnprefixedHex(e.from) === key);
}
