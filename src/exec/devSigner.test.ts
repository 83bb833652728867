import assert from "node:assert/strict";
import { test } from "node:test";
import { devAccounts, devGenesis } from "../chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import type { UnsignedTransaction } from "../services/signer.ts";
import { hexToBytes } from "../util/hex.ts";
import { createDevSigner, TxBuildError } from "./devSigner.ts";
import { libraryRefusalText } from "./txPrecheck.ts";

const accounts = devAccounts(1);
const from = hexToBytes(accounts[0]!.address);
const at = { number: 1n, timestamp: 2n };
const base: UnsignedTransaction = {
  type: 2,
  chainId: 31337n,
  nonce: 0n,
  gasLimit: 21000n,
  to: new Uint8Array(20).fill(7),
  value: 1n,
  data: new Uint8Array(0),
  maxFeePerGas: 10n ** 9n,
  maxPriorityFeePerGas: 1n,
  gasPrice: undefined,
  accessList: [],
  authorizationList: undefined,
};

async function signer() {
  const spec = await chainSpecFromGenesis(
    devGenesis({
      chainId: 31337n,
      fork: "osaka",
      accounts,
      balanceWei: 1n,
      gasLimit: 30_000_000n,
      timestamp: 1n,
    }),
  );
  return createDevSigner(spec, accounts);
}

test("what the library cannot build is refused in geth's words, signed or placeholder", async () => {
  const s = await signer();
  assert.ok(s.signTransaction(from, base, at).length > 0);
  const tipAboveCap = { ...base, maxPriorityFeePerGas: 2n ** 63n };
  for (const sign of [s.signTransaction, s.placeholderTransaction]) {
    assert.throws(
      () => sign(from, tipAboveCap, at),
      (e) =>
        e instanceof TxBuildError &&
        e.message === "max priority fee per gas higher than max fee per gas",
    );
  }
  assert.throws(
    () => s.signTransaction(from, { ...base, gasLimit: 2n ** 24n + 1n }, at),
    (e) =>
      e instanceof TxBuildError &&
      e.message === "transaction gas limit too high (cap: 16777216, tx: 16777217)",
  );
});

test("an unknown refusal keeps the library's first line, without its transaction dump", () => {
  assert.equal(
    libraryRefusalText("something odd (tx type=2 hash=0x1 nonce=0)\n    at x"),
    "invalid transaction: something odd",
  );
  assert.equal(
    libraryRefusalText("Tx instantiation with type 9 not supported"),
    "transaction type not supported",
  );
});
