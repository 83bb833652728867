// Where the executor's state lives while transactions run, on the real archive and EVM: blocks
// built as the sequencer builds them are replayed by a second executor as a follower replays
// flashblocks. While the transactions run no trie node is read (accounts, slots and code come
// from the archive's flat tables, or from memory), what a block wrote is still in memory when the
// next one runs, and the roots the two executors seal are the same.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Block } from "@ethereumjs/block";
import { createTxFromRLP } from "@ethereumjs/tx";
import { asm } from "../../test/utils/evmAsm.ts";
import { tempDatadir } from "../../test/utils/fixtures.ts";
import { devAccounts, devGenesis } from "../chain/devGenesis.ts";
import { chainSpecFromGenesis } from "../chain/genesis.ts";
import type { ReceiptRecord } from "../chain/types.ts";
import { PendingReplay } from "../follow/pendingReplay.ts";
import type { ChainStore } from "../store/archive.ts";
import { createChainStore } from "../store/chainStore.ts";
import { openKvEnv } from "../store/lmdb.ts";
import { bytesToHex, bytesToUnprefixedHex, hexToBytes } from "../util/hex.ts";
import type { BlockExecutor } from "./blockExecutor.ts";
import { ensureGenesis } from "./chainStart.ts";
import { createDevSigner } from "./devSigner.ts";
import { includeTransaction } from "./op/opBlock.ts";

const CONTRACT = new Uint8Array(20).fill(0x5c);
/** Stores calldata word 0 at slot calldata word 1. */
const RUNTIME = asm(["0x00", "CALLDATALOAD", "0x20", "CALLDATALOAD", "SSTORE", "STOP"]);
const word = (n: number) => new Uint8Array(32).fill(0).map((_, i) => (i === 31 ? n : 0));

type Counts = { trie: number; plain: number };

/**
 * The archive, with the reads that reach it counted: trie nodes, and plain state of `watched`
 * (the test's senders and contract; the system contracts write new slots every block).
 */
function counted(store: ChainStore, counts: Counts, watched: Set<string>): ChainStore {
  const watch = (a: Uint8Array) => {
    if (watched.has(bytesToUnprefixedHex(a))) counts.plain++;
  };
  return {
    ...store,
    trieNode: (k) => {
      counts.trie++;
      return store.trieNode(k);
    },
    currentAccount: (a) => {
      watch(a);
      return store.currentAccount(a);
    },
    currentStorage: (a, s) => {
      watch(a);
      return store.currentStorage(a, s);
    },
  };
}

test("no trie while transactions run; a block's writes stay in memory for the next; same roots", async () => {
  const accounts = devAccounts(4);
  const genesis = devGenesis({
    chainId: 31337n,
    fork: "prague",
    accounts,
    balanceWei: 10n ** 21n,
    gasLimit: 30_000_000n,
    timestamp: 1n,
  });
  const storage: Record<string, string> = {};
  for (let i = 0; i < 8; i++) storage[bytesToHex(word(i))] = bytesToHex(word(100 + i));
  (genesis.alloc as Record<string, unknown>)[bytesToUnprefixedHex(CONTRACT)] = {
    balance: "0x0",
    code: `0x${RUNTIME}`,
    storage,
  };
  const spec = await chainSpecFromGenesis(genesis);
  const common = spec.common.copy();
  const signer = createDevSigner(spec, accounts);
  const envs = [openKvEnv(tempDatadir("exec-state-a")), openKvEnv(tempDatadir("exec-state-b"))];
  try {
    const storeA = createChainStore(envs[0]!);
    const storeB = createChainStore(envs[1]!);
    const a = await ensureGenesis(spec, storeA);
    const counts: Counts = { trie: 0, plain: 0 };
    const watched = new Set([
      bytesToUnprefixedHex(CONTRACT),
      ...accounts.map((x) => x.address.slice(2).toLowerCase()),
    ]);
    const b = await ensureGenesis(spec, counted(storeB, counts, watched));
    const replay = new PendingReplay(b, common);
    const nonces = accounts.map(() => 0n);

    /** Block `n` on A: every sender writes two of the contract's slots. */
    const build = async (executor: BlockExecutor, store: ChainStore, n: number) => {
      const builder = await executor.openBuilder({
        timestamp: BigInt(n) * 2n,
        gasLimit: 30_000_000n,
        coinbase: new Uint8Array(20),
        parentBeaconBlockRoot: new Uint8Array(32),
      });
      const receipts: ReceiptRecord[] = [];
      for (const [i, account] of accounts.entries()) {
        for (const slot of [i, i + 4]) {
          const raw = signer.signTransaction(
            hexToBytes(account.address),
            {
              type: 2,
              chainId: 31337n,
              nonce: nonces[i]!++,
              gasLimit: 100_000n,
              to: CONTRACT,
              value: 0n,
              data: Uint8Array.from([...word(n * 10 + slot), ...word(slot)]),
              gasPrice: undefined,
              maxFeePerGas: 10n ** 10n,
              maxPriorityFeePerGas: 1n,
              accessList: [],
              authorizationList: undefined,
            },
            { number: BigInt(n), timestamp: BigInt(n) * 2n },
          );
          const tx = createTxFromRLP(raw, { common });
          receipts.push(
            await includeTransaction(
              builder,
              undefined,
              tx,
              { baseFee: undefined, blobGasPrice: undefined },
              false,
            ),
          );
        }
      }
      const { block } = await builder.build();
      store.writeBlock(await executor.collectWrite(block, receipts));
      return block;
    };

    /** Block `block` replayed on B as one flashblock, then sealed from the replay. */
    const follow = async (block: Block) => {
      const h = block.header;
      await replay.start(
        "0x0000000000000001",
        {
          parentHash: h.parentHash,
          parentBeaconBlockRoot: h.parentBeaconBlockRoot!,
          feeRecipient: h.coinbase.bytes,
          prevRandao: h.mixHash,
          blockNumber: Number(h.number),
          gasLimit: h.gasLimit,
          timestamp: h.timestamp,
          extraData: h.extraData,
          baseFeePerGas: h.baseFeePerGas!,
        },
        [
          {
            payloadId: "0x0000000000000001",
            index: 0,
            blockNumber: Number(h.number),
            base: undefined,
            diff: {
              stateRoot: new Uint8Array(32),
              receiptsRoot: h.receiptTrie,
              logsBloom: h.logsBloom,
              gasUsed: h.gasUsed,
              blockHash: new Uint8Array(32),
              transactions: block.transactions.map((t) => ({ hash: t.hash(), raw: t.serialize() })),
              withdrawals: [],
              withdrawalsRoot: new Uint8Array(32),
              blobGasUsed: undefined,
            },
            metadata: { receipts: undefined, newAccountBalances: undefined },
          },
        ],
      );
      const during = { ...counts };
      const write = await replay.sealAs(block);
      assert.ok(write !== undefined, `block ${h.number} sealed from the replay`);
      assert.equal(bytesToHex(write.localStateRoot!), bytesToHex(h.stateRoot), "same state root");
      storeB.writeBlock(write);
      return during;
    };

    for (const n of [1, 2, 3]) {
      const block = await build(a, storeA, n);
      counts.trie = 0;
      counts.plain = 0;
      const during = await follow(block);
      assert.equal(during.trie, 0, `block ${n}: trie nodes read while its transactions ran`);
      if (n > 1)
        assert.equal(
          during.plain,
          0,
          `block ${n}: the archive read for state the block before had in memory`,
        );
      assert.ok(counts.trie > 0, `block ${n}: its root computed from the trie at the seal`);
    }
    assert.equal(
      bytesToHex(storeB.currentStorage(CONTRACT, word(5))),
      bytesToHex(storeA.currentStorage(CONTRACT, word(5))),
    );
  } finally {
    for (const env of envs) await env.close();
  }
});
