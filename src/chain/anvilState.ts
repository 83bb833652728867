// anvil's state file (`--dump-state`, `--load-state`, `--state`) and anvil_dumpState /
// anvil_loadState bytes (that JSON, gzipped): `block` (the block environment), `accounts`
// {address: {nonce, balance, code, storage}}, `best_block_number`, `blocks`, `transactions`,
// `historical_states`, as foundry's SerializableState writes and reads them.
//
// What flashnode writes: every account of the state, the head's block environment, and the head
// block's header alone in `blocks` (no transactions), so anvil loading it goes on from the same
// number, its next block's parent being flashnode's head. What it reads: the accounts and the
// block environment's timestamp; an anvil chain's blocks and receipts are not carried over (a
// flashnode chain holds only blocks it executed).
import { gunzipSync, gzipSync } from "node:zlib";
import { FlashnodeError } from "../util/errors.ts";
import { bigIntToBytes, bytesToHex, hexToBytes, padLeft, quantity } from "../util/hex.ts";
import type { HeaderView } from "./blockView.ts";

/** A state file or anvil_loadState argument that is not anvil's format. */
export class StateFileError extends FlashnodeError {
  readonly code = "STATE_FILE";
}

/** One account of a state: storage values as 32-byte words, zero slots left out. */
export type StateAccount = {
  readonly address: Uint8Array;
  readonly nonce: bigint;
  readonly balance: bigint;
  readonly code: Uint8Array;
  readonly storage: ReadonlyArray<readonly [slot: Uint8Array, value: Uint8Array]>;
};

/** A chain's state as flashnode dumps it: every account, at the head (and what is pending). */
export type StateDump = {
  readonly accounts: readonly StateAccount[];
  /** The head block's header. */
  readonly head: HeaderView;
  /** The blob gas price of the block after the head. */
  readonly blobGasPrice: bigint;
};

/** What a state file gives a chain: its accounts, and the time its chain had reached. */
export type LoadedState = {
  readonly accounts: readonly StateAccount[];
  /** The block environment's timestamp, when the file has one. */
  readonly timestamp: bigint | undefined;
};

const U64_MAX = (1n << 64n) - 1n;
const U256_MAX = (1n << 256n) - 1n;

/** A header as alloy serializes one (anvil's `blocks[].header`). */
function headerObject(h: HeaderView): Record<string, string> {
  const out: Record<string, string> = {
    parentHash: bytesToHex(h.parentHash),
    sha3Uncles: bytesToHex(h.uncleHash),
    miner: bytesToHex(h.coinbase),
    stateRoot: bytesToHex(h.stateRoot),
    transactionsRoot: bytesToHex(h.transactionsTrie),
    receiptsRoot: bytesToHex(h.receiptTrie),
    logsBloom: bytesToHex(h.logsBloom),
    difficulty: quantity(h.difficulty),
    number: quantity(h.number),
    gasLimit: quantity(h.gasLimit),
    gasUsed: quantity(h.gasUsed),
    timestamp: quantity(h.timestamp),
    extraData: bytesToHex(h.extraData),
    mixHash: bytesToHex(h.mixHash),
    nonce: bytesToHex(h.nonce),
  };
  if (h.baseFeePerGas !== undefined) out.baseFeePerGas = quantity(h.baseFeePerGas);
  if (h.withdrawalsRoot !== undefined) out.withdrawalsRoot = bytesToHex(h.withdrawalsRoot);
  if (h.blobGasUsed !== undefined) out.blobGasUsed = quantity(h.blobGasUsed);
  if (h.excessBlobGas !== undefined) out.excessBlobGas = quantity(h.excessBlobGas);
  if (h.parentBeaconBlockRoot !== undefined)
    out.parentBeaconBlockRoot = bytesToHex(h.parentBeaconBlockRoot);
  if (h.requestsHash !== undefined) out.requestsHash = bytesToHex(h.requestsHash);
  return out;
}

/** The dump as anvil's state JSON (the text of a --dump-state file). */
export function anvilStateJson(dump: StateDump): string {
  const h = dump.head;
  const accounts: Record<string, unknown> = {};
  const sorted = [...dump.accounts].sort((a, b) => Buffer.compare(a.address, b.address));
  for (const a of sorted) {
    const storage: Record<string, string> = {};
    const slots = [...a.storage].sort((x, y) => Buffer.compare(x[0], y[0]));
    for (const [slot, value] of slots)
      storage[bytesToHex(padLeft(slot, 32))] = bytesToHex(padLeft(value, 32));
    accounts[bytesToHex(a.address)] = {
      // anvil's nonce is a u64, a JSON number: exact below 2^53, as every real nonce is.
      nonce: Number(a.nonce),
      balance: quantity(a.balance),
      code: bytesToHex(a.code),
      storage,
    };
  }
  return JSON.stringify({
    block: {
      number: quantity(h.number),
      beneficiary: bytesToHex(h.coinbase),
      timestamp: quantity(h.timestamp),
      gas_limit: Number(h.gasLimit),
      basefee: Number(h.baseFeePerGas ?? 0n),
      difficulty: quantity(h.difficulty),
      prevrandao: bytesToHex(h.mixHash),
      blob_excess_gas_and_price: {
        excess_blob_gas: Number(h.excessBlobGas ?? 0n),
        blob_gasprice: Number(dump.blobGasPrice),
      },
      slot_num: 0,
    },
    accounts,
    best_block_number: Number(h.number),
    blocks: [{ header: headerObject(h), transactions: [], ommers: [], withdrawals: null }],
    transactions: [],
    historical_states: null,
  });
}

/** anvil_dumpState's answer: the state JSON, gzipped. */
export function gzipState(json: string): Uint8Array {
  return gzipSync(Buffer.from(json, "utf8"));
}

/** anvil_loadState's argument: gzipped JSON (what anvil_dumpState answers), or plain JSON. */
export function stateJsonFromBytes(bytes: Uint8Array): string {
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    try {
      return gunzipSync(bytes).toString("utf8");
    } catch {
      throw new StateFileError("Failed to decode state dump");
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** A U256 as serde reads one: a 0x-hex or decimal string, or a JSON number. */
function u256(raw: unknown, what: string, max = U256_MAX): bigint {
  let n: bigint | undefined;
  if (typeof raw === "number" && Number.isSafeInteger(raw) && raw >= 0) n = BigInt(raw);
  else if (typeof raw === "string" && /^0[xX][0-9a-fA-F]{0,64}$/.test(raw))
    n = raw.length === 2 ? 0n : BigInt(raw);
  else if (typeof raw === "string" && /^[0-9]{1,78}$/.test(raw)) n = BigInt(raw);
  if (n === undefined || n > max)
    throw new StateFileError(`${what}: invalid number ${JSON.stringify(raw) ?? String(raw)}`);
  return n;
}

function address(raw: string): Uint8Array {
  if (!/^0[xX][0-9a-fA-F]{40}$/.test(raw))
    throw new StateFileError(`accounts: invalid address ${JSON.stringify(raw)}`);
  return hexToBytes(raw);
}

function bytes(raw: unknown, what: string): Uint8Array {
  if (typeof raw === "string" && /^(0[xX])?([0-9a-fA-F]{2})*$/.test(raw)) return hexToBytes(raw);
  throw new StateFileError(`${what}: invalid bytes ${JSON.stringify(raw) ?? String(raw)}`);
}

function word(n: bigint): Uint8Array {
  return padLeft(bigIntToBytes(n), 32);
}

function account(hex: string, raw: unknown): StateAccount {
  const where = `accounts.${hex}`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new StateFileError(`${where}: want {nonce, balance, code, storage}`);
  const a = raw as Record<string, unknown>;
  const storageRaw = a.storage ?? {};
  if (typeof storageRaw !== "object" || storageRaw === null || Array.isArray(storageRaw))
    throw new StateFileError(`${where}.storage: want an object of slot → value`);
  const storage: Array<readonly [Uint8Array, Uint8Array]> = [];
  for (const [slot, value] of Object.entries(storageRaw as Record<string, unknown>)) {
    const v = u256(value, `${where}.storage`);
    if (v !== 0n) storage.push([word(u256(slot, `${where}.storage`)), word(v)]);
  }
  return {
    address: address(hex),
    nonce: u256(a.nonce ?? 0, `${where}.nonce`, U64_MAX),
    balance: u256(a.balance ?? 0, `${where}.balance`),
    code: bytes(a.code ?? "0x", `${where}.code`),
    storage,
  };
}

/** Reads anvil's state JSON (a --load-state file, or anvil_loadState's bytes). */
export function parseAnvilState(json: string): LoadedState {
  let doc: unknown;
  try {
    doc = JSON.parse(json);
  } catch (e) {
    throw new StateFileError(`not JSON: ${(e as Error).message}`);
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc))
    throw new StateFileError("want anvil's state object {block, accounts, …}");
  const d = doc as Record<string, unknown>;
  const accountsRaw = d.accounts;
  if (typeof accountsRaw !== "object" || accountsRaw === null || Array.isArray(accountsRaw))
    throw new StateFileError("accounts: want an object of address → account");
  const accounts = Object.entries(accountsRaw as Record<string, unknown>).map(([hex, raw]) =>
    account(hex, raw),
  );
  const block = d.block as Record<string, unknown> | null | undefined;
  const timestamp =
    block?.timestamp === undefined || block.timestamp === null
      ? undefined
      : u256(block.timestamp, "block.timestamp", U64_MAX);
  return { accounts, timestamp };
}
