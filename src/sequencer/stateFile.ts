// anvil's state dumps on a flashblocks chain (run in the sequencer's queue):
// - a dump holds every account as the chain has it now: the archive's plain state at the head,
//   with what the block being built has pre-confirmed over it (everything sent before the call);
// - a load writes the state's accounts into the block being built, as anvil_setBalance & co.
//   write (one flashblock of dev writes, recorded and sealed with the block), as anvil's
//   load_state merges them: balance and code replaced, the larger of the two nonces, each slot
//   given set. Only what differs is written. The clock goes on from the state's block time when
//   that is later than the chain's, from the block that holds the state on (as anvil's).
import type { LoadedState, StateAccount, StateDump } from "../chain/anvilState.ts";
import { decodeHeader } from "../chain/blockView.ts";
import type { AccountRecord, StateWrite } from "../chain/types.ts";
import { encodeStateWrite } from "../exec/devWrites.ts";
import { bytesToUnprefixedHex, padLeft, trimLeadingZeros } from "../util/hex.ts";
import { type DevHost, flashblockNow } from "./devHost.ts";
import { reopen } from "./rebuild.ts";

type Entry = { account: AccountRecord; storage: Map<string, Uint8Array> };

export async function dumpState(seq: DevHost): Promise<StateDump> {
  await flashblockNow(seq, [], true);
  const byAddress = new Map<string, Entry>();
  for (const a of seq.store.currentState())
    byAddress.set(bytesToUnprefixedHex(a.address), {
      account: a.account,
      storage: new Map(a.storage.map(([slot, value]) => [bytesToUnprefixedHex(slot), value])),
    });
  const changes = await seq.executor.pendingChanges();
  for (const address of changes.wiped)
    byAddress.get(bytesToUnprefixedHex(address))?.storage.clear();
  for (const [address, account] of changes.accounts) {
    const key = bytesToUnprefixedHex(address);
    if (account === undefined) byAddress.delete(key);
    else byAddress.set(key, { account, storage: byAddress.get(key)?.storage ?? new Map() });
  }
  for (const [address, slot, value] of changes.storage) {
    const storage = byAddress.get(bytesToUnprefixedHex(address))?.storage;
    if (value.length === 0) storage?.delete(bytesToUnprefixedHex(slot));
    else storage?.set(bytesToUnprefixedHex(slot), value);
  }
  const newCode = new Map(changes.code.map(([hash, code]) => [bytesToUnprefixedHex(hash), code]));
  const code = (hash: Uint8Array | undefined) =>
    hash === undefined
      ? new Uint8Array(0)
      : (seq.store.code(hash) ?? newCode.get(bytesToUnprefixedHex(hash)) ?? new Uint8Array(0));
  const accounts: StateAccount[] = [];
  for (const [hex, { account, storage }] of byAddress)
    accounts.push({
      address: Buffer.from(hex, "hex"),
      nonce: account.nonce,
      balance: account.balance,
      code: code(account.codeHash),
      storage: [...storage].map(([slot, value]) => [Buffer.from(slot, "hex"), value] as const),
    });
  const head = seq.executor.headBlock().header;
  return {
    accounts,
    head: decodeHeader(seq.common, head.serialize()),
    blobGasPrice: seq.current().base.blobGasPrice,
  };
}

/** The writes that make the chain hold `a` as anvil's load_state would. */
async function writesFor(seq: DevHost, a: StateAccount): Promise<StateWrite[]> {
  const address = a.address;
  const now = await seq.executor.currentAccount(address);
  const writes: StateWrite[] = [];
  // An account the chain does not have and the state holds empty stays absent.
  if (now === undefined ? a.balance !== 0n : now.balance !== a.balance)
    writes.push({ kind: "balance", address, value: a.balance });
  if (a.nonce > (now?.nonce ?? 0n)) writes.push({ kind: "nonce", address, value: a.nonce });
  const code = await seq.executor.currentCode(address);
  if (Buffer.compare(code, a.code) !== 0) writes.push({ kind: "code", address, code: a.code });
  for (const [slot, value] of a.storage) {
    const current = await seq.executor.currentStorage(address, slot);
    if (Buffer.compare(trimLeadingZeros(current), trimLeadingZeros(value)) !== 0)
      writes.push({ kind: "storage", address, slot, value: padLeft(trimLeadingZeros(value), 32) });
  }
  return writes;
}

/** Writes the state's accounts into the block being built (one flashblock); how many writes. */
export async function loadState(seq: DevHost, state: LoadedState): Promise<number> {
  if (state.timestamp !== undefined) {
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (state.timestamp - now > seq.dev.clock.offset) {
      seq.dev.clock.offset = state.timestamp - now;
      // The block being built takes the new time before the state goes in: the block that
      // holds it is at the state's time, and the next ones go on from there.
      await reopen(seq);
    }
  }
  const ops: Uint8Array[] = [];
  for (const a of state.accounts)
    for (const w of await writesFor(seq, a)) {
      await seq.executor.applyStateWrite(w);
      ops.push(encodeStateWrite(w));
    }
  await flashblockNow(seq, ops);
  return ops.length;
}
