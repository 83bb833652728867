// The node's L1 fee (FastLZ length + Fjord formula) against the GasPriceOracle predeploy's own
// Solidity (Optimism's published bytecode, LibZip.flzCompress) run in the EVM on many inputs.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Common, Hardfork, Mainnet } from "@ethereumjs/common";
import { createEVM } from "@ethereumjs/evm";
import { Account, Address } from "@ethereumjs/util";
import { GAS_PRICE_ORACLE, L1_BLOCK } from "../../chain/op/config.ts";
import { opPredeploys } from "../../chain/op/predeploys.ts";
import { bytesToBigInt, hexToBytes } from "../../util/hex.ts";
import { flzCompressLen } from "./fastlz.ts";
import { fjordL1Cost } from "./l1Cost.ts";

const L1 = {
  number: 100n,
  timestamp: 1200n,
  baseFee: 12_345_678_901n,
  blobBaseFee: 987_654_321n,
  hash: new Uint8Array(32).fill(7),
  sequenceNumber: 3n,
  batcherHash: new Uint8Array(32),
  baseFeeScalar: 2269,
  blobBaseFeeScalar: 1_055_762,
};

/** Deterministic test inputs: random bytes, repetitive runs (FastLZ matches), and mixes. */
function inputs(): Uint8Array[] {
  let seed = 12345;
  const rand = () => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
    return seed >>> 16;
  };
  const out: Uint8Array[] = [new Uint8Array(0), Uint8Array.of(1), new Uint8Array(12).fill(9)];
  for (const length of [13, 14, 40, 100, 300, 1000, 5000, 20000]) {
    out.push(Uint8Array.from({ length }, () => rand() & 0xff));
    out.push(Uint8Array.from({ length }, (_, i) => (i % 7 === 0 ? rand() & 0xff : i % 3)));
    out.push(Uint8Array.from({ length }, (_, i) => (i < length / 2 ? 0 : rand() & 0x0f)));
  }
  return out;
}

function abiBytes(selector: string, data: Uint8Array): Uint8Array {
  const padded = Math.ceil(data.length / 32) * 32;
  const out = new Uint8Array(4 + 64 + padded);
  out.set(hexToBytes(selector), 0);
  out[4 + 31] = 0x20;
  const len = data.length;
  for (let i = 0; i < 4; i++) out[4 + 63 - i] = (len >>> (8 * i)) & 0xff;
  out.set(data, 68);
  return out;
}

test("the L1 fee equals GasPriceOracle.getL1Fee's (FastLZ and Fjord's formula, bit for bit)", async () => {
  const alloc = await opPredeploys(L1, new Uint8Array(20));
  const evm = await createEVM({
    common: new Common({ chain: Mainnet, hardfork: Hardfork.Cancun }),
  });
  for (const [hex, acct] of Object.entries(alloc)) {
    const address = new Address(hexToBytes(`0x${hex}`));
    await evm.stateManager.putAccount(address, new Account());
    await evm.stateManager.putCode(address, hexToBytes(acct.code));
    for (const [slot, value] of Object.entries(acct.storage ?? {}))
      await evm.stateManager.putStorage(address, hexToBytes(slot), hexToBytes(value));
  }
  const params = {
    l1BaseFee: L1.baseFee,
    l1BlobBaseFee: L1.blobBaseFee,
    baseFeeScalar: BigInt(L1.baseFeeScalar),
    blobBaseFeeScalar: BigInt(L1.blobBaseFeeScalar),
  };
  for (const data of inputs()) {
    const r = await evm.runCall({
      to: new Address(GAS_PRICE_ORACLE),
      data: abiBytes("0x49948e0e", data), // getL1Fee(bytes)
      gasLimit: 100_000_000n,
    });
    assert.equal(r.execResult.exceptionError, undefined);
    // The oracle prices an unsigned transaction: it adds 68 bytes for the signature.
    const ours = fjordL1Cost(BigInt(flzCompressLen(data) + 68), params).fee;
    assert.equal(bytesToBigInt(r.execResult.returnValue), ours, `${data.length} bytes`);
  }
  // The oracle reads the L1 values from L1Block, as the node does.
  const l1BaseFee = await evm.runCall({
    to: new Address(L1_BLOCK),
    data: hexToBytes("0x5cf24969"), // basefee()
    gasLimit: 100_000n,
  });
  assert.equal(bytesToBigInt(l1BaseFee.execResult.returnValue), L1.baseFee);
});
