// State overrides of a simulated block (geth's override.StateOverride.Apply): accounts in address
// order; a precompile that is overridden stops being one, and movePrecompileToAddress puts its
// code at another address for the block.
import type { PrecompileFunc } from "@ethereumjs/evm";
import { Account, Address, toChecksumAddress } from "@ethereumjs/util";
import type { StateOverrides } from "../../services/simulate.ts";
import { bytesToHex, bytesToUnprefixedHex, trimLeadingZeros } from "../../util/hex.ts";
import { CallFailedError } from "../callExecutor.ts";
import type { SimStateManager } from "./simState.ts";
import { SIM_CODE } from "./simTx.ts";

/** The EVM library's active precompiles, keyed by unprefixed lowercase address. */
export type Precompiles = Map<string, PrecompileFunc>;

const fail = (message: string) => new CallFailedError(message, SIM_CODE.server, undefined);
const hexOf = (a: Uint8Array) => toChecksumAddress(bytesToHex(a));

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length && i < b.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

export async function applyStateOverrides(
  overrides: StateOverrides | undefined,
  state: SimStateManager,
  precompiles: Precompiles,
): Promise<void> {
  if (overrides === undefined) return;
  const sorted = [...overrides].sort(([a], [b]) => compareBytes(a, b));
  const overridden = new Set(sorted.map(([a]) => bytesToUnprefixedHex(a)));
  const movedTo = new Set<string>();
  for (const [addressBytes, o] of sorted) {
    const key = bytesToUnprefixedHex(addressBytes);
    if (movedTo.has(key))
      throw fail(`account ${hexOf(addressBytes)} has already been overridden by a precompile`);
    const precompile = precompiles.get(key);
    if (o.movePrecompileToAddress !== undefined) {
      if (precompile === undefined)
        throw fail(`account ${hexOf(addressBytes)} is not a precompile`);
      const dest = bytesToUnprefixedHex(o.movePrecompileToAddress);
      if (overridden.has(dest))
        throw fail(`account ${hexOf(o.movePrecompileToAddress)} is already overridden`);
      precompiles.set(dest, precompile);
      movedTo.add(dest);
    }
    if (precompile !== undefined) precompiles.delete(key);
    const address = new Address(addressBytes);
    if (o.nonce !== undefined) {
      const a = (await state.getAccount(address)) ?? new Account();
      a.nonce = o.nonce;
      await state.putAccount(address, a);
    }
    if (o.code !== undefined) await state.putCode(address, o.code);
    if (o.balance !== undefined) {
      const a = (await state.getAccount(address)) ?? new Account();
      a.balance = o.balance;
      await state.putAccount(address, a);
    }
    if (o.state !== undefined && o.stateDiff !== undefined)
      throw fail(`account ${hexOf(addressBytes)} has both 'state' and 'stateDiff'`);
    if (o.state !== undefined) {
      // The whole storage is replaced: nothing of the old one shows through.
      if ((await state.getAccount(address)) === undefined)
        await state.putAccount(address, new Account());
      await state.clearStorage(address);
      for (const [slot, value] of o.state)
        await state.putStorage(address, slot, trimLeadingZeros(value));
    }
    if (o.stateDiff !== undefined) {
      if ((await state.getAccount(address)) === undefined)
        await state.putAccount(address, new Account());
      for (const [slot, value] of o.stateDiff)
        await state.putStorage(address, slot, trimLeadingZeros(value));
    }
  }
}
