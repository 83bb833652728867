// Transactions of impersonated senders (anvil_impersonateAccount): no key signs them. They carry
// a placeholder signature that names the sender, r = the sender's address and s = 1, and the
// sequencer runs them with that sender without checking the signature, as anvil does. The
// placeholder makes the encoding, and so the hash, unique per sender, so a block's body, its
// transaction hashes and a restart's replay all agree on what the transaction is. A real
// signature has s = 1 and r below 2^160 with a probability of about 2^-350.
import type { Common } from "@ethereumjs/common";
import { createTxFromRLP, type TypedTransaction } from "@ethereumjs/tx";
import { Address, bigIntToAddressBytes, bytesToBigInt } from "@ethereumjs/util";

const ADDRESS_LIMIT = 1n << 160n;

/** The placeholder signature of `sender`'s transactions (v / yParity 0, before EIP-155). */
export function placeholderSignature(sender: Uint8Array): { r: bigint; s: bigint } {
  return { r: bytesToBigInt(sender), s: 1n };
}

/** The sender a placeholder signature names; undefined for any other signature. */
export function placeholderSender(tx: TypedTransaction): Uint8Array | undefined {
  const { r, s } = tx;
  if (s !== 1n || r === undefined || r >= ADDRESS_LIMIT) return undefined;
  return bigIntToAddressBytes(r);
}

/** A copy of `tx` that runs as sent by `sender`, its signature unchecked. */
export function asImpersonated(
  tx: TypedTransaction,
  sender: Uint8Array,
  common: Common,
): TypedTransaction {
  const copy = createTxFromRLP(tx.serialize(), { common, freeze: false });
  const address = new Address(sender);
  Object.assign(copy, { getSenderAddress: () => address, verifySignature: () => true });
  return copy;
}

/** `tx` itself, or its impersonated copy when it carries a placeholder signature. */
export function withPlaceholderSender(tx: TypedTransaction, common: Common): TypedTransaction {
  const sender = placeholderSender(tx);
  return sender === undefined ? tx : asImpersonated(tx, sender, common);
}
