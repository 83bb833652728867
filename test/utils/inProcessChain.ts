// An OP-stack dev chain's sequencer run in this process on a real archive (its own datadir), for
// tests of what happens per transaction: the sequencer's flashblocks and seals come only when the
// test asks (tick, mine), and every update it publishes is kept; a second archive of the same
// genesis follows it, as a follower replays what the stream carried.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type DevAccount, devAccounts } from "../../src/chain/devGenesis.ts";
import { type ChainSpec, chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { newDevGenesis } from "../../src/chain/newDevChain.ts";
import { SEQUENCER_FEE_VAULT } from "../../src/chain/op/config.ts";
import { DEFAULT_DEV_L1 } from "../../src/chain/op/l1Info.ts";
import type { BlockExecutor } from "../../src/exec/blockExecutor.ts";
import { ensureGenesis } from "../../src/exec/chainStart.ts";
import { createDevSigner } from "../../src/exec/devSigner.ts";
import type { FlashblockUpdate, SealedUpdate } from "../../src/pending/types.ts";
import { Sequencer } from "../../src/sequencer/sequencer.ts";
import type { ChainStore } from "../../src/store/archive.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { type KvEnv, openKvEnv } from "../../src/store/lmdb.ts";
import { hexToBytes } from "../../src/util/hex.ts";

export const CHAIN_ID = 84532n;

export type Archive = {
  readonly spec: ChainSpec;
  readonly store: ChainStore;
  readonly executor: BlockExecutor;
  readonly env: KvEnv;
};

export type InProcessChain = {
  readonly genesis: unknown;
  readonly accounts: readonly DevAccount[];
  readonly sequencer: Sequencer;
  readonly archive: Archive;
  /** Every update the sequencer published, in order. */
  readonly updates: (FlashblockUpdate | SealedUpdate)[];
  /** A signed ETH transfer of 1 wei from account `from` at its next nonce. */
  transfer(from: number): Uint8Array;
  /** Another archive of the same genesis (a follower's). */
  openArchive(name: string): Promise<Archive>;
  close(): Promise<void>;
};

async function archiveAt(dir: string, genesis: unknown): Promise<Archive> {
  const env = openKvEnv(dir, { noSync: true });
  const store = createChainStore(env);
  const spec = await chainSpecFromGenesis(genesis);
  return { spec, store, executor: await ensureGenesis(spec, store), env };
}

export async function startInProcessChain(accountCount = 4): Promise<InProcessChain> {
  const dir = mkdtempSync(join(tmpdir(), "flashnode-inprocess-"));
  const accounts = devAccounts(accountCount);
  const genesis = await newDevGenesis({
    chainId: CHAIN_ID,
    fork: "prague",
    ethereum: false,
    l1: DEFAULT_DEV_L1,
    gasLimit: 30_000_000n,
    accounts: accounts.length,
    balanceEth: 100n,
  });
  const archives: Archive[] = [];
  const open = async (name: string) => {
    const a = await archiveAt(join(dir, name), genesis);
    archives.push(a);
    return a;
  };
  const archive = await open("sequencer");
  const updates: (FlashblockUpdate | SealedUpdate)[] = [];
  const sequencer = new Sequencer(
    archive.executor,
    archive.store,
    archive.spec.common.copy(),
    {
      blockTimeMs: 1e9,
      flashblockIntervalMs: 1e9,
      gasLimit: 30_000_000n,
      coinbase: SEQUENCER_FEE_VAULT,
      l1: DEFAULT_DEV_L1,
    },
    (u) => updates.push(u),
  );
  await sequencer.start();
  const signer = createDevSigner(archive.spec, accounts);
  const nonces = accounts.map(() => 0n);
  return {
    genesis,
    accounts,
    sequencer,
    archive,
    updates,
    transfer: (from) =>
      signer.signTransaction(
        hexToBytes(accounts[from]!.address),
        {
          type: 2,
          chainId: CHAIN_ID,
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
        { number: BigInt((archive.store.headNumber() ?? 0) + 1), timestamp: 2n },
      ),
    openArchive: open,
    async close() {
      await sequencer.stop();
      for (const a of archives) await a.env.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
