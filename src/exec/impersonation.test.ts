import assert from "node:assert/strict";
import { test } from "node:test";
import { createTxFromRLP } from "@ethereumjs/tx";
import { devAccounts, devGenesis } from "../chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import type { UnsignedTransaction } from "../services/signer.ts";
import { bytesToHex } from "../util/hex.ts";
import { createDevSigner } from "./devSigner.ts";
import { placeholderSender, withPlaceholderSender } from "./impersonation.ts";

test("a placeholder-signed transaction names its sender; a signed one names none", async () => {
  const accounts = devAccounts(2);
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
  const signer = createDevSigner(spec, accounts);
  const tx: UnsignedTransaction = {
    type: 2,
    chainId: 31337n,
    nonce: 0n,
    gasLimit: 21000n,
    to: new Uint8Array(20).fill(7),
    value: 1n,
    data: new Uint8Array(0),
    gasPrice: undefined,
    maxFeePerGas: 10n,
    maxPriorityFeePerGas: 1n,
    accessList: [],
    authorizationList: undefined,
  };
  const at = { number: 1n, timestamp: 2n };
  const whale = new Uint8Array(20).fill(0xab);
  const other = new Uint8Array(20).fill(0xcd);
  const raw = signer.placeholderTransaction(whale, tx, at);
  const decoded = createTxFromRLP(raw, { common: spec.common });
  assert.equal(bytesToHex(placeholderSender(decoded)!), bytesToHex(whale));
  assert.equal(
    bytesToHex(withPlaceholderSender(decoded, spec.common).getSenderAddress().bytes),
    bytesToHex(whale),
  );
  // One encoding, one hash, per sender.
  assert.notEqual(bytesToHex(signer.placeholderTransaction(other, tx, at)), bytesToHex(raw));
  const signed = createTxFromRLP(
    signer.signTransaction(Buffer.from(accounts[0]!.address.slice(2), "hex"), tx, at),
    { common: spec.common },
  );
  assert.equal(placeholderSender(signed), undefined);
  assert.equal(bytesToHex(signed.getSenderAddress().bytes), accounts[0]!.address.toLowerCase());
  // Legacy: EIP-155 v with the placeholder r and s.
  const legacy = createTxFromRLP(
    signer.placeholderTransaction(
      whale,
      {
        ...tx,
        type: 0,
        gasPrice: 10n,
        maxFeePerGas: undefined,
        maxPriorityFeePerGas: undefined,
        accessList: undefined,
      },
      at,
    ),
    { common: spec.common },
  );
  assert.equal(legacy.v, 31337n * 2n + 35n);
  assert.equal(bytesToHex(placeholderSender(legacy)!), bytesToHex(whale));
});
