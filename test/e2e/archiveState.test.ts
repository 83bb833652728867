// The archive's history reads (plain state + change sets + history index) must agree with the
// state trie at every block: the trie roots match geth's, so the trie is the ground truth here.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import { MerkleStateManager } from "@ethereumjs/statemanager";
import { Address, KECCAK256_NULL } from "@ethereumjs/util";
import { decodeHeader } from "../../src/chain/blockView.ts";
import { chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { BufferedTrieDb } from "../../src/exec/trieDb.ts";
import type { ChainStore } from "../../src/store/archive.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { readU64 } from "../../src/store/keys.ts";
import { type KvEnv, openKvEnv } from "../../src/store/lmdb.ts";
import { bytesToHex, equalBytes, trimLeadingZeros } from "../../src/util/hex.ts";
import { importFixtureChain } from "../utils/fixtures.ts";

let env: KvEnv;
let store: ChainStore;

before(() => {
  env = openKvEnv(importFixtureChain("state"), { readOnly: true });
  store = createChainStore(env);
});
after(async () => {
  await env.close();
});

test("account and storage reads at every block equal the state trie at that block", async () => {
  const spec = await chainSpecFromGenesis(JSON.parse(store.chainConfig()!));
  const head = store.headNumber()!;
  const accounts = new Map<string, Uint8Array>();
  const slots = new Map<string, { address: Uint8Array; slot: Uint8Array }>();
  for (const { key } of env
    .table("accountChangeSets")
    .range(new Uint8Array(0), new Uint8Array(28).fill(255))) {
    accounts.set(bytesToHex(key.subarray(8)), key.slice(8));
  }
  for (const { key } of env
    .table("storageChanges")
    .range(new Uint8Array(0), new Uint8Array(60).fill(255))) {
    slots.set(bytesToHex(key.subarray(8)), { address: key.slice(8, 28), slot: key.slice(28) });
    assert.ok(readU64(key) <= head);
  }
  assert.ok(
    accounts.size > 10 && slots.size > 50,
    `chain exercises state (${accounts.size} accounts, ${slots.size} slots)`,
  );

  const trie = new MerklePatriciaTrie({
    db: new BufferedTrieDb(store),
    useKeyHashing: true,
    valueEncoding: "view",
    common: spec.common,
  });
  const state = new MerkleStateManager({ trie, common: spec.common });
  let checked = 0;
  for (let n = 0; n <= head; n++) {
    const header = decodeHeader(spec.common, store.headerRlp(n, store.canonicalHash(n)!)!);
    await state.setStateRoot(header.stateRoot);
    for (const address of accounts.values()) {
      const fromTrie = await state.getAccount(new Address(address));
      const fromArchive = store.account(address, n);
      assert.equal(
        fromArchive === undefined,
        fromTrie === undefined,
        `existence of ${bytesToHex(address)} at ${n}`,
      );
      if (fromTrie === undefined || fromArchive === undefined) continue;
      assert.equal(
        fromArchive.balance,
        fromTrie.balance,
        `balance of ${bytesToHex(address)} at ${n}`,
      );
      assert.equal(fromArchive.nonce, fromTrie.nonce, `nonce of ${bytesToHex(address)} at ${n}`);
      const trieCode = equalBytes(fromTrie.codeHash, KECCAK256_NULL)
        ? undefined
        : fromTrie.codeHash;
      assert.equal(
        fromArchive.codeHash && bytesToHex(fromArchive.codeHash),
        trieCode && bytesToHex(trieCode),
        `code of ${bytesToHex(address)} at ${n}`,
      );
      checked++;
    }
    for (const { address, slot } of slots.values()) {
      const fromTrie = trimLeadingZeros(await state.getStorage(new Address(address), slot));
      const fromArchive = store.storage(address, slot, n);
      assert.equal(
        bytesToHex(fromArchive),
        bytesToHex(fromTrie),
        `slot ${bytesToHex(slot)} of ${bytesToHex(address)} at ${n}`,
      );
      checked++;
    }
  }
  assert.ok(checked > 10_000, `checked ${checked} values`);
});
