// The whole current state, read off the plain-state tables in key order (a state dump: anvil's
// --dump-state and anvil_dumpState). Never used to answer a read of one account or slot.
import type { AccountRecord } from "../chain/types.ts";
import { copyBytes } from "../util/hex.ts";
import { decodeAccount } from "./codec.ts";
import type { KvTable } from "./lmdb.ts";
import { slotRowIsZero, slotRowValue } from "./slotRow.ts";

/** One account of the current state with its non-zero slots (values with leading zeros trimmed). */
export type ScannedAccount = {
  readonly address: Uint8Array;
  readonly account: AccountRecord;
  readonly storage: ReadonlyArray<readonly [slot: Uint8Array, value: Uint8Array]>;
};

const ALL_START = Uint8Array.of(0);

/** Every existing account and its storage, in address order. */
export function scanCurrentState(t: {
  readonly accounts: KvTable;
  readonly slots: KvTable;
}): ScannedAccount[] {
  const storage = new Map<string, Array<readonly [Uint8Array, Uint8Array]>>();
  // Keys are address (20) ‖ slot (32); a row of a slot now zero stays for its history.
  const end = new Uint8Array(53).fill(0xff);
  for (const { key, value } of t.slots.range(ALL_START, end)) {
    if (slotRowIsZero(value)) continue;
    const owner = Buffer.from(key.subarray(0, 20)).toString("hex");
    let list = storage.get(owner);
    if (list === undefined) {
      list = [];
      storage.set(owner, list);
    }
    list.push([copyBytes(key, 20, 52), copyBytes(slotRowValue(value))]);
  }
  const out: ScannedAccount[] = [];
  for (const { key, value } of t.accounts.range(ALL_START, new Uint8Array(21).fill(0xff))) {
    const address = copyBytes(key);
    out.push({
      address,
      account: decodeAccount(value),
      storage: storage.get(Buffer.from(address).toString("hex")) ?? [],
    });
  }
  return out;
}
