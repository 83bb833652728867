import assert from "node:assert/strict";
import { test } from "node:test";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import {
  anvilStateJson,
  gzipState,
  parseAnvilState,
  type StateDump,
  StateFileError,
  stateJsonFromBytes,
} from "./anvilState.ts";
import type { HeaderView } from "./blockView.ts";

const A = "0x5fbdb2315678afecb367f032d93f642f64180aa3";
const B = "0x1000000000000000000000000000000000000001";
const W = (n: number) => `0x${n.toString(16).padStart(64, "0")}`;

// The shape anvil 1.7.1 writes (--dump-state), trimmed to two accounts.
const ANVIL_DUMP = JSON.stringify({
  block: {
    number: "0x2",
    beneficiary: "0x0000000000000000000000000000000000000000",
    timestamp: "0x6b093efe",
    gas_limit: 30000000,
    basefee: 876015384,
    difficulty: "0x0",
    prevrandao: W(7),
    blob_excess_gas_and_price: { excess_blob_gas: 0, blob_gasprice: 1 },
    slot_num: 0,
  },
  accounts: {
    [A]: { nonce: 1, balance: "0x0", code: "0x01550000", storage: { [W(0)]: W(42), [W(2)]: W(3) } },
    [B]: { nonce: 0, balance: "0x5", code: "0x", storage: {} },
  },
  best_block_number: 2,
  blocks: [],
  transactions: [],
  historical_states: null,
});

test("an anvil state file: its accounts and its block time", () => {
  const s = parseAnvilState(ANVIL_DUMP);
  assert.equal(s.timestamp, 0x6b093efen);
  const a = s.accounts.find((x) => bytesToHex(x.address) === A)!;
  assert.equal(a.nonce, 1n);
  assert.equal(bytesToHex(a.code), "0x01550000");
  assert.deepEqual(
    a.storage.map(([k, v]) => [bytesToHex(k), bytesToHex(v)]),
    [
      [W(0), W(42)],
      [W(2), W(3)],
    ],
  );
  const b = s.accounts.find((x) => bytesToHex(x.address) === B)!;
  assert.equal(b.balance, 5n);
  assert.equal(b.code.length, 0);
});

test("serde's number forms are read; zero slots are left out; a null block has no time", () => {
  const s = parseAnvilState(
    JSON.stringify({
      block: null,
      accounts: {
        [A]: { nonce: "0x3", balance: "1000", code: "6001", storage: { "0x1": "0x0", "2": 9 } },
      },
      best_block_number: null,
    }),
  );
  assert.equal(s.timestamp, undefined);
  const a = s.accounts[0]!;
  assert.equal(a.nonce, 3n);
  assert.equal(a.balance, 1000n);
  assert.equal(bytesToHex(a.code), "0x6001");
  assert.deepEqual(
    a.storage.map(([k, v]) => [bytesToHex(k), bytesToHex(v)]),
    [[W(2), W(9)]],
  );
});

test("what is not anvil's format is refused with where it went wrong", () => {
  assert.throws(() => parseAnvilState("{"), StateFileError);
  assert.throws(() => parseAnvilState("[]"), /want anvil's state object/);
  assert.throws(() => parseAnvilState('{"accounts":{"0x12":{}}}'), /invalid address "0x12"/);
  assert.throws(
    () => parseAnvilState(`{"accounts":{"${A}":{"nonce":"0x10000000000000000"}}}`),
    /accounts\.0x5fbd.*\.nonce: invalid number/,
  );
  assert.throws(() => parseAnvilState(`{"accounts":{"${A}":{"code":"0x1"}}}`), /invalid bytes/);
});

const HEAD: HeaderView = {
  hash: new Uint8Array(32).fill(9),
  parentHash: new Uint8Array(32).fill(1),
  uncleHash: new Uint8Array(32).fill(2),
  coinbase: hexToBytes("0x4200000000000000000000000000000000000011"),
  stateRoot: new Uint8Array(32).fill(3),
  transactionsTrie: new Uint8Array(32).fill(4),
  receiptTrie: new Uint8Array(32).fill(5),
  logsBloom: new Uint8Array(256),
  difficulty: 0n,
  number: 7n,
  gasLimit: 60_000_000n,
  gasUsed: 21_000n,
  timestamp: 1_800_000_000n,
  extraData: new Uint8Array(0),
  mixHash: new Uint8Array(32).fill(6),
  nonce: new Uint8Array(8),
  baseFeePerGas: 1000n,
  withdrawalsRoot: new Uint8Array(32).fill(7),
  blobGasUsed: 0n,
  excessBlobGas: 0n,
  parentBeaconBlockRoot: new Uint8Array(32),
  requestsHash: undefined,
};

test("a dump in anvil's format: the head's environment and header, every account, and back", () => {
  const dump: StateDump = {
    head: HEAD,
    blobGasPrice: 1n,
    accounts: [
      {
        address: hexToBytes(B),
        nonce: 0n,
        balance: 5n,
        code: new Uint8Array(0),
        storage: [],
      },
      {
        address: hexToBytes(A),
        nonce: 1n,
        balance: 0n,
        code: hexToBytes("0x6001"),
        storage: [[hexToBytes(W(1)), hexToBytes(W(0xabc))]],
      },
    ],
  };
  const json = anvilStateJson(dump);
  const doc = JSON.parse(json) as Record<string, unknown>;
  assert.deepEqual(Object.keys(doc), [
    "block",
    "accounts",
    "best_block_number",
    "blocks",
    "transactions",
    "historical_states",
  ]);
  assert.equal(doc.best_block_number, 7);
  assert.deepEqual(Object.keys(doc.accounts as object), [B, A]);
  const block = doc.block as Record<string, unknown>;
  assert.equal(block.number, "0x7");
  assert.equal(block.timestamp, "0x6b49d200");
  assert.equal(block.basefee, 1000);
  const header = (doc.blocks as Array<{ header: Record<string, string> }>)[0]!.header;
  assert.equal(header.number, "0x7");
  assert.equal(header.miner, "0x4200000000000000000000000000000000000011");
  assert.equal(header.requestsHash, undefined);
  const back = parseAnvilState(stateJsonFromBytes(gzipState(json)));
  assert.equal(back.timestamp, 1_800_000_000n);
  assert.deepEqual(
    back.accounts.map((a) => [bytesToHex(a.address), a.nonce, a.balance, bytesToHex(a.code)]),
    [
      [B, 0n, 5n, "0x"],
      [A, 1n, 0n, "0x6001"],
    ],
  );
  assert.equal(bytesToHex(back.accounts[1]!.storage[0]![1]), W(0xabc));
});

test("anvil_loadState bytes: gzipped or plain JSON; a broken gzip is anvil's error", () => {
  assert.equal(stateJsonFromBytes(Buffer.from("{}")), "{}");
  assert.throws(
    () => stateJsonFromBytes(Uint8Array.of(0x1f, 0x8b, 1, 2)),
    /Failed to decode state dump/,
  );
});
