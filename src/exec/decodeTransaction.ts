// Signed transactions as eth_sendRawTransaction receives them, decoded with geth's refusal texts.
import type { Common } from "@ethereumjs/common";
import {
  createBlob4844TxFromSerializedNetworkWrapper,
  createTxFromRLP,
  NetworkWrapperType,
  type TypedTransaction,
} from "@ethereumjs/tx";
import { pinSender, rememberEncoding } from "../chain/txFacts.ts";
import { TxRejectedError } from "../services/transactions.ts";
import { libraryRefusalText } from "./txPrecheck.ts";

/**
 * The transactions decoded from each byte array, by Common: a submitted transaction is decoded
 * once, whether a fork's prefetch or the pool's intake asks first.
 */
const decoded = new WeakMap<
  Uint8Array,
  { readonly common: Common; readonly tx: TypedTransaction }
>();

export function decodeRawTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  const known = decoded.get(raw);
  if (known !== undefined && known.common === common) return known.tx;
  let tx: TypedTransaction;
  try {
    if (raw[0] === 3) return decodeBlobTx(raw, common);
    tx = pinSender(createTxFromRLP(raw, { common: common, freeze: false }));
  } catch (e) {
    throw new TxRejectedError(libraryRefusalText((e as Error).message));
  }
  // A blob transaction's bytes here are its network form; any other's are its block form.
  rememberEncoding(tx, raw);
  decoded.set(raw, { common, tx });
  return tx;
}

/**
 * A blob transaction with its sidecar. Since Osaka (EIP-7594) sidecars carry cell proofs; like
 * geth, a sidecar with the older per-blob proofs is converted rather than refused.
 */
function decodeBlobTx(raw: Uint8Array, common: Common): TypedTransaction {
  const tx = createBlob4844TxFromSerializedNetworkWrapper(raw, {
    common: common,
    freeze: false,
  });
  const kzg = common.customCrypto.kzg;
  if (
    common.isActivatedEIP(7594) &&
    tx.networkWrapperVersion === NetworkWrapperType.EIP4844 &&
    kzg !== undefined
  ) {
    const proofs: string[] = [];
    for (const blob of tx.blobs ?? []) proofs.push(...kzg.computeCellsAndProofs(blob)[1]);
    Object.assign(tx, { kzgProofs: proofs, networkWrapperVersion: NetworkWrapperType.EIP7594 });
  }
  Object.freeze(tx);
  return tx;
}
