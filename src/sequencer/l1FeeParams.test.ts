// The L1 fee parameters on an OP-stack dev chain's sequencer, run in this process on a real
// archive: read from the L1Block predeploy once a block (op-geth's L1 cost function reads them
// once per block), not at each transaction's intake and execution; read again after a dev
// method writes them, and in the next block after its L1-info deposit wrote them.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Address } from "@ethereumjs/util";
import { devAccounts } from "../chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import { newDevGenesis } from "../chain/newDevChain.ts";
import { L1_BLOCK, SEQUENCER_FEE_VAULT } from "../chain/op/config.ts";
import { DEFAULT_DEV_L1 } from "../chain/op/l1Info.ts";
import { ensureGenesis } from "../exec/chainStart.ts";
import { createDevSigner } from "../exec/devSigner.ts";
import type { FlashblockUpdate, SealedUpdate } from "../pending/types.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { equalBytes } from "../util/hex.ts";
import { Sequencer } from "./sequencer.ts";

const dir = mkdtempSync(join(tmpdir(), "flashnode-l1fee-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("the L1 fee parameters are read once a block, and again after a write of them", async () => {
  const accounts = devAccounts(4);
  const genesis = await newDevGenesis({
    chainId: 84532n,
    fork: "prague",
    ethereum: false,
    l1: DEFAULT_DEV_L1,
    gasLimit: 30_000_000n,
    accounts: accounts.length,
    balanceEth: 100n,
  });
  const spec = await chainSpecFromGenesis(genesis);
  const env = openKvEnv(dir, { noSync: true });
  const store = createChainStore(env);
  const executor = await ensureGenesis(spec, store);
  const updates: (FlashblockUpdate | SealedUpdate)[] = [];
  const seq = new Sequencer(
    executor,
    store,
    spec.common.copy(),
    {
      blockTimeMs: 1e9,
      flashblockIntervalMs: 1e9,
      gasLimit: 30_000_000n,
      coinbase: SEQUENCER_FEE_VAULT,
      l1: DEFAULT_DEV_L1,
    },
    (u) => updates.push(u),
  );
  // Reads of the L1Block predeploy's storage by anything in the executor's VM.
  let l1BlockReads = 0;
  const state = (
    executor as unknown as {
      state: { getStorage: (a: Address, s: Uint8Array) => Promise<Uint8Array> };
    }
  ).state;
  const getStorage = state.getStorage.bind(state);
  state.getStorage = (address, slot) => {
    if (equalBytes(address.bytes, L1_BLOCK)) l1BlockReads++;
    return getStorage(address, slot);
  };
  const signer = createDevSigner(spec, accounts);
  const nonces = accounts.map(() => 0n);
  const transfer = (from: number) => {
    const head = store.headNumber() ?? 0;
    return signer.signTransaction(
      new Address(Buffer.from(accounts[from]!.address.slice(2), "hex")).bytes,
      {
        type: 2,
        chainId: 84532n,
        nonce: nonces[from]!++,
        gasLimit: 21_000n,
        to: new Uint8Array(20).fill(7),
        value: 1n,
        data: new Uint8Array(0),
        gasPrice: undefined,
        maxFeePerGas: 10_000_000_000n,
        maxPriorityFeePerGas: 1n,
        accessList: [],
        authorizationList: undefined,
      },
      { number: BigInt(head + 1), timestamp: BigInt(Math.floor(Date.now() / 1000)) },
    );
  };
  /** The receipts of what the next flashblock publishes after sending `raws`. */
  const flashblockOf = async (raws: Uint8Array[]) => {
    for (const raw of raws) await seq.submit(raw);
    const before = updates.length;
    await seq.serial(() => seq.tick());
    const fb = updates.slice(before).find((u) => u.kind === "flashblock");
    assert.ok(fb !== undefined && fb.kind === "flashblock");
    return fb.receipts;
  };
  try {
    await seq.start();
    l1BlockReads = 0;
    const first = await flashblockOf([transfer(0), transfer(1), transfer(2)]);
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
    const [written] = await flashblockOf([transfer(3)]);
    assert.equal(written?.op?.l1GasPrice, 77n);

    // The next block's L1-info deposit writes the dev L1's values again.
    await seq.mine();
    const [next] = await flashblockOf([transfer(0)]);
    assert.equal(next?.op?.l1GasPrice, DEFAULT_DEV_L1.baseFee);
  } finally {
    await seq.stop();
    await env.close();
  }
});
