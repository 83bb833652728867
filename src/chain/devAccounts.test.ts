import assert from "node:assert/strict";
import { test } from "node:test";
import { HDKey } from "@scure/bip32";
import { mnemonicToSeedSync } from "@scure/bip39";
import { DEV_MNEMONIC, devAccounts } from "./devGenesis.ts";

test("the test mnemonic's accounts are anvil's and hardhat's", () => {
  const accounts = devAccounts(10);
  assert.equal(accounts.length, 10);
  assert.deepEqual(accounts[0], {
    address: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
    privateKey: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  });
  assert.deepEqual(accounts[1], {
    address: "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    privateKey: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  });
  assert.deepEqual(accounts[9], {
    address: "0xa0ee7a142d267c1f36714e4a8f75612f20a79720",
    privateKey: "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6",
  });
  // Asked again, for fewer or more: the same accounts.
  assert.deepEqual(devAccounts(3), accounts.slice(0, 3));
  assert.deepEqual(devAccounts(12).slice(0, 10), accounts);
});

test("any mnemonic derives as BIP-39/BIP-32 say (checked against @scure's JavaScript)", () => {
  const mnemonic = "legal winner thank year wave sausage worth useful legal winner thank yellow";
  const root = HDKey.fromMasterSeed(mnemonicToSeedSync(mnemonic));
  const expected = [0, 1, 2, 25].map((i) => root.derive(`m/44'/60'/0'/0/${i}`).privateKey);
  const derived = devAccounts(26, mnemonic);
  for (const [n, i] of [0, 1, 2, 25].entries())
    assert.equal(derived[i]?.privateKey, `0x${Buffer.from(expected[n]!).toString("hex")}`);
  assert.notDeepEqual(derived[0], devAccounts(1, DEV_MNEMONIC)[0]);
});
