// A decoded transaction's kept facts against what the EVM library derives itself: its encoding,
// its hash and its sender (pinned, hashed natively), for each transaction type; a signature that
// recovers no key refused with the library's error.
import assert from "node:assert/strict";
import { test } from "node:test";
import { RLP } from "@ethereumjs/rlp";
import { createTx, createTxFromRLP } from "@ethereumjs/tx";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import { devAccounts, devGenesis } from "./devGenesis.ts";
import { chainSpecFromGenesis } from "./genesis.ts";
import { decodeBlockTransaction } from "./op/blockTx.ts";
import { encodingOf, hashOf, senderOf } from "./txFacts.ts";

test("kept encoding, hash and sender equal the library's, for every transaction type", async () => {
  const [account] = devAccounts(1);
  const spec = await chainSpecFromGenesis(
    devGenesis({
      chainId: 31337n,
      fork: "prague",
      accounts: [account!],
      balanceWei: 1n,
      gasLimit: 30_000_000n,
      timestamp: 1n,
    }),
  );
  const key = hexToBytes(account!.privateKey);
  const common = spec.common;
  const fields = {
    chainId: 31337n,
    nonce: 3n,
    gasLimit: 50_000n,
    to: `0x${"07".repeat(20)}`,
    value: 5n,
    data: "0x010203",
  } as const;
  const accessList: [Uint8Array, Uint8Array[]][] = [
    [new Uint8Array(20).fill(9), [new Uint8Array(32)]],
  ];
  const signed = [
    createTx({ ...fields, type: 0, gasPrice: 10n ** 10n }, { common }).sign(key),
    createTx({ ...fields, type: 1, gasPrice: 10n ** 10n, accessList }, { common }).sign(key),
    createTx(
      { ...fields, type: 2, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, accessList },
      { common },
    ).sign(key),
  ];
  for (const reference of signed) {
    const raw = reference.serialize();
    const tx = decodeBlockTransaction(raw, common);
    assert.ok(Object.isFrozen(tx), `type ${tx.type} frozen`);
    assert.equal(bytesToHex(encodingOf(tx)), bytesToHex(reference.serialize()));
    assert.equal(bytesToHex(hashOf(tx)), bytesToHex(reference.hash()));
    assert.equal(senderOf(tx).toString(), reference.getSenderAddress().toString());
    assert.equal(tx.getSenderAddress().toString(), account!.address.toLowerCase());
    // One Address, however often asked.
    assert.equal(tx.getSenderAddress(), tx.getSenderAddress());
  }
  // r beyond the curve order: no key is recovered; refused as the library refuses it.
  const good = signed[2]!;
  const values = good.raw().slice(0, -2);
  const badRaw = Uint8Array.from([
    2,
    ...RLP.encode([...values, new Uint8Array(32).fill(0xff), Uint8Array.of(2)]),
  ]);
  const reference = createTxFromRLP(badRaw, { common });
  assert.throws(() => reference.getSenderAddress(), /Invalid Signature/);
  assert.throws(
    () => decodeBlockTransaction(badRaw, common).getSenderAddress(),
    /Invalid Signature/,
  );
});
