// The L1 fee parameters on an OP-stack dev chain's sequencer, run in this process on a real
// archive: read from the L1Block predeploy once a block (op-geth's L1 cost function reads them
// once per block), not at each transaction's intake and execution; read again after a dev
// method writes them, and in the next block after its L1-info deposit wrote them.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Address } from "@ethereumjs/util";
import { startInProcessChain } from "../../test/utils/inProcessChain.ts";
import { L1_BLOCK } from "../chain/op/config.ts";
import { DEFAULT_DEV_L1 } from "../chain/op/l1Info.ts";
import { equalBytes } from "../util/hex.ts";

type Storage = { getStorage(a: Address, s: Uint8Array): Promise<Uint8Array> };

test("the L1 fee parameters are read once a block, and again after a write of them", async () => {
  const chain = await startInProcessChain();
  const seq = chain.sequencer;
  // Reads of the L1Block predeploy's storage by anything in the executor's VM.
  let l1BlockReads = 0;
  const state = (chain.archive.executor as unknown as { state: Storage }).state;
  const getStorage = state.getStorage.bind(state);
  state.getStorage = (address, slot) => {
    if (equalBytes(address.bytes, L1_BLOCK)) l1BlockReads++;
    return getStorage(address, slot);
  };
  /** The receipts of what the next flashblock publishes after sending `raws`. */
  const flashblockOf = async (raws: Uint8Array[]) => {
    for (const raw of raws) await seq.submit(raw);
    // Executed in the background; the tick publishes what has run by then.
    await seq.idle();
    const before = chain.updates.length;
    await seq.serial(() => seq.tick());
    const fb = chain.updates.slice(before).find((u) => u.kind === "flashblock");
    assert.ok(fb !== undefined && fb.kind === "flashblock");
    return fb.receipts;
  };
  try {
    l1BlockReads = 0;
    const first = await flashblockOf([chain.transfer(0), chain.transfer(1), chain.transfer(2)]);
    assert.equal(first.length, 3);
    // One read of the parameters (5 slots) for the block, where each intake and each execution
    // read them before.
    assert.ok(l1BlockReads <= 5, `${l1BlockReads} reads of L1Block for 3 transactions`);
    for (const r of first) assert.equal(r.op?.l1GasPrice, DEFAULT_DEV_L1.baseFee);

    // anvil_setStorageAt of L1Block's l1BaseFee (slot 1): the next transaction pays by it.
    const slot = new Uint8Array(32);
    slot[31] = 1;
    const value = new Uint8Array(32);
    value[31] = 77;
    await seq.control({ op: "write", write: { kind: "storage", address: L1_BLOCK, slot, value } });
    const [written] = await flashblockOf([chain.transfer(3)]);
    assert.equal(written?.op?.l1GasPrice, 77n);

    // The next block's L1-info deposit writes the dev L1's values again.
    await seq.mine();
    const [next] = await flashblockOf([chain.transfer(0)]);
    assert.equal(next?.op?.l1GasPrice, DEFAULT_DEV_L1.baseFee);
  } finally {
    await chain.close();
  }
});
