// State written straight into the block being built by dev methods (anvil_setBalance,
// anvil_setNonce, anvil_setCode, anvil_setStorageAt): no transaction, like anvil's. The sealed
// block carries them in its state change like any other write. Encoded for the flashblock
// record, so a restart (or an evm_revert) replays them in place.

import type { StateManagerInterface } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { Account, Address, bigIntToBytes, bytesToBigInt } from "@ethereumjs/util";
import type { StateWrite } from "../chain/types.ts";

const KINDS = ["balance", "nonce", "code", "storage"] as const;

export function encodeStateWrite(w: StateWrite): Uint8Array {
  const kind = Uint8Array.of(KINDS.indexOf(w.kind));
  switch (w.kind) {
    case "balance":
    case "nonce":
      return RLP.encode([kind, w.address, bigIntToBytes(w.value)]);
    case "code":
      return RLP.encode([kind, w.address, w.code]);
    case "storage":
      return RLP.encode([kind, w.address, w.slot, w.value]);
  }
}

export function decodeStateWrite(bytes: Uint8Array): StateWrite {
  const [kind, address, a, b] = RLP.decode(bytes) as Uint8Array[];
  if (kind === undefined || address === undefined || a === undefined)
    throw new Error("corrupt dev state write");
  switch (KINDS[kind[0] ?? 0]) {
    case "balance":
      return { kind: "balance", address, value: bytesToBigInt(a) };
    case "nonce":
      return { kind: "nonce", address, value: bytesToBigInt(a) };
    case "code":
      return { kind: "code", address, code: a };
    case "storage":
      if (b === undefined) throw new Error("corrupt dev state write");
      return { kind: "storage", address, slot: a, value: b };
    default:
      throw new Error("corrupt dev state write");
  }
}

/** Applies the write to the state the block is being built on. */
export async function applyStateWrite(state: StateManagerInterface, w: StateWrite): Promise<void> {
  const address = new Address(w.address);
  const account = (await state.getAccount(address)) ?? new Account();
  switch (w.kind) {
    case "balance":
      account.balance = w.value;
      return state.putAccount(address, account);
    case "nonce":
      account.nonce = w.value;
      return state.putAccount(address, account);
    case "code":
      // An account must exist to hold code (putCode reads it back).
      await state.putAccount(address, account);
      return state.putCode(address, w.code);
    case "storage":
      await state.putAccount(address, account);
      return state.putStorage(address, w.slot, w.value);
  }
}
