// The chains of `bench/execState.ts`, in this process on the real executor and archive: a dev
// OP-stack chain built as the sequencer builds (openBlock / includeInBlock / flashblocks / seal),
// a follower of it (a fork at block F whose upstream is that chain's archive at F) replaying its
// flashblocks and sealing each block as the follower does, and a chain importing its blocks with
// every root verified. Only the executor's public entry points are used, so that the same file
// runs on the commit before a change.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Block } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { devAccounts, devGenesis } from "../../src/chain/devGenesis.ts";
import { type ChainSpec, chainSpecFromGenesis } from "../../src/chain/genesis.ts";
import { blockFromRlp, decodeBlockTransaction } from "../../src/chain/op/blockTx.ts";
import { DEFAULT_DEV_L1, devL1Values } from "../../src/chain/op/l1Info.ts";
import { opPredeploys } from "../../src/chain/op/predeploys.ts";
import { blockRlp } from "../../src/chain/rawEncoding.ts";
import type { BlockExecutor } from "../../src/exec/blockExecutor.ts";
import { ensureForkBase, ensureGenesis } from "../../src/exec/chainStart.ts";
import { sealBuilder } from "../../src/exec/vmInternals.ts";
import type { Flashblock } from "../../src/follow/flashblock.ts";
import { PendingReplay } from "../../src/follow/pendingReplay.ts";
import type { PendingTransaction } from "../../src/pending/types.ts";
import {
  type AssemblyParts,
  includeInBlock,
  openBlock,
} from "../../src/sequencer/blockAssembly.ts";
import { assembleFlashblock } from "../../src/sequencer/building.ts";
import { DepositQueue } from "../../src/sequencer/deposits.ts";
import { DevClock } from "../../src/sequencer/devState.ts";
import { IntakeTimes } from "../../src/sequencer/intakeTimes.ts";
import type { UpstreamState } from "../../src/services/upstreamState.ts";
import type { ChainStore } from "../../src/store/archive.ts";
import { createChainStore } from "../../src/store/chainStore.ts";
import { type KvEnv, openKvEnv } from "../../src/store/lmdb.ts";
import { keccak256 } from "../../src/util/crypto.ts";
import { bytesToHex, hexToBytes } from "../../src/util/hex.ts";

export type Archive = { readonly store: ChainStore; readonly env: KvEnv; readonly dir: string };

export function openArchive(name: string): Archive {
  const dir = mkdtempSync(join(tmpdir(), `exec-state-${name}-`));
  const env = openKvEnv(dir);
  return { store: createChainStore(env), env, dir };
}

export async function closeArchive(a: Archive): Promise<void> {
  await a.env.close();
  rmSync(a.dir, { recursive: true, force: true });
}

/** The genesis's time; block n is 2n seconds later, so that equal inputs give equal blocks. */
const GENESIS_TIME = 1_700_000_000n;

/** A dev OP-stack chain as `flashnode dev` makes one, at a fixed time. */
export async function devSpec(count: number): Promise<ChainSpec> {
  const accounts = devAccounts(count);
  return chainSpecFromGenesis(
    devGenesis({
      chainId: 84532n,
      fork: "prague",
      accounts,
      balanceWei: 10n ** 22n,
      gasLimit: 1_000_000_000n,
      timestamp: GENESIS_TIME,
      op: await opPredeploys(
        devL1Values(DEFAULT_DEV_L1, GENESIS_TIME),
        hexToBytes(accounts[0]!.address),
      ),
    }),
  );
}

/** What one built block published, as a follower receives it. */
export type BuiltBlock = { readonly number: number; readonly flashblocks: PendingTransaction[][] };

/** The sequencer's path: blocks opened on the head, transactions included, flashblocks, seals. */
export class SequencerChain {
  private readonly parts: AssemblyParts;
  /** Every flashblock's state diff, as published, in order (compared across trees). */
  readonly diffs: string[] = [];

  private constructor(
    readonly spec: ChainSpec,
    readonly archive: Archive,
    readonly executor: BlockExecutor,
  ) {
    const common = spec.common.copy();
    this.parts = {
      executor,
      common,
      opts: { coinbase: new Uint8Array(20).fill(0x42), gasLimit: 1_000_000_000n },
      dev: { clock: new DevClock(), nextBaseFee: undefined },
      intake: new IntakeTimes(),
      deposits: new DepositQueue(common),
    };
  }

  static async open(spec: ChainSpec): Promise<SequencerChain> {
    const archive = openArchive("seq");
    return new SequencerChain(spec, archive, await ensureGenesis(spec, archive.store));
  }

  get common(): Common {
    return this.parts.common;
  }

  /** One block of `flashblocks` (each a list of raw transactions), sealed and written. */
  async block(flashblocks: readonly Uint8Array[][]): Promise<BuiltBlock> {
    const started = performance.now();
    const next = BigInt(this.archive.store.headNumber()! + 1);
    this.parts.dev.clock.next = GENESIS_TIME + 2n * next;
    const b = await openBlock(this.parts, undefined, started);
    const published: PendingTransaction[][] = [];
    // Flashblock 0: what opening the block put there (the L1-info deposit).
    published.push(b.transactions.slice());
    await this.parts.executor.drainDiff();
    for (const raws of flashblocks) {
      b.advance();
      const added: PendingTransaction[] = [];
      for (const raw of raws) {
        const tx = decodeBlockTransaction(raw, this.common);
        added.push(await includeInBlock(this.parts, b, tx, false));
      }
      const diff = await this.parts.executor.drainDiff();
      this.diffs.push(digest(diff));
      assembleFlashblock(b, added, diff, started, this.common);
      published.push(added);
    }
    const block = await sealBuilder(b.builder, {
      transactions: b.txTrie.root(),
      receipts: b.receiptTrie.root(),
    });
    this.archive.store.writeBlock(await this.parts.executor.collectWrite(block, b.receipts));
    this.parts.dev.clock.sealed();
    return { number: Number(block.header.number), flashblocks: published };
  }

  /** Every block's hash, from genesis: equal inputs, equal hashes (state roots included). */
  hashes(): string[] {
    return blockDigests(this.archive.store);
  }

  /** Block `n` as stored (the follower's and the importer's input). */
  storedBlock(n: number): Block {
    const s = this.archive.store;
    const hash = s.canonicalHash(n)!;
    return blockFromRlp(blockRlp(s.headerRlp(n, hash)!, s.bodyRlp(n, hash)!), {
      common: this.spec.common,
      setHardfork: true,
    });
  }
}

const EMPTY = new Uint8Array(0);

/** A short digest of a value of bytes, bigints, arrays and records (key order kept). */
export function digest(value: unknown): string {
  const text = JSON.stringify(value, (_k, v) =>
    v instanceof Uint8Array ? bytesToHex(v) : typeof v === "bigint" ? `${v}n` : v,
  );
  return bytesToHex(keccak256(new TextEncoder().encode(text)).subarray(0, 8));
}

/** Each block of the archive (a fork's from F): its hash and a digest of its change sets. */
export function blockDigests(store: ChainStore): string[] {
  const out: string[] = [];
  for (let n = store.forkBase()?.number ?? 0; n <= store.headNumber()!; n++)
    out.push(`${bytesToHex(store.canonicalHash(n)!)} ${digest(store.blockChanges(n))}`);
  return out;
}

/** The sequencer chain's archive at block F, as a forked chain's upstream sees it. */
function upstreamAt(store: ChainStore, f: number): UpstreamState {
  const account = (a: Uint8Array) => store.account(a, f);
  const code = (a: Uint8Array) => {
    const hash = account(a)?.codeHash;
    return hash === undefined ? EMPTY : (store.code(hash) ?? EMPTY);
  };
  return {
    account: async (a) => account(a),
    storage: async (a, s) => store.storage(a, s, f),
    code: async (a) => code(a),
    codeByHash: (h) => store.code(h),
    peekAccount: (a) => account(a) ?? null,
    peekStorage: (a, s) => store.storage(a, s, f),
    prefetch: async () => {},
  };
}

/** The follower's path: a fork of the sequencer chain at F replaying its flashblocks. */
export class FollowerChain {
  private readonly replay: PendingReplay;

  private constructor(
    private readonly source: SequencerChain,
    readonly archive: Archive,
    private readonly common: Common,
    readonly executor: BlockExecutor,
  ) {
    this.replay = new PendingReplay(executor, common);
  }

  static async open(source: SequencerChain): Promise<FollowerChain> {
    const archive = openArchive("follow");
    const up = source.archive.store;
    const f = up.headNumber()!;
    const hash = up.canonicalHash(f)!;
    const executor = await ensureForkBase(
      source.spec,
      archive.store,
      {
        upstream: upstreamAt(up, f),
        hashes: { canonicalHash: async (n) => (n <= f ? up.canonicalHash(n) : undefined) },
      },
      {
        chainId: source.spec.common.chainId(),
        number: f,
        hash,
        base: { headerRlp: up.headerRlp(f, hash)!, writes: [] },
      },
    );
    return new FollowerChain(source, archive, source.spec.common.copy(), executor);
  }

  /** Replays `built` flashblock by flashblock, then seals it as the canonical block. */
  async follow(built: BuiltBlock): Promise<void> {
    const block = this.source.storedBlock(built.number);
    const h = block.header;
    const payloadId = bytesToHex(h.hash().subarray(0, 8));
    const fb = (index: number, transactions: PendingTransaction[]): Flashblock => ({
      payloadId,
      index,
      blockNumber: built.number,
      base:
        index > 0
          ? undefined
          : {
              parentHash: h.parentHash,
              parentBeaconBlockRoot: h.parentBeaconBlockRoot!,
              feeRecipient: h.coinbase.bytes,
              prevRandao: h.mixHash,
              blockNumber: built.number,
              gasLimit: h.gasLimit,
              timestamp: h.timestamp,
              extraData: h.extraData,
              baseFeePerGas: h.baseFeePerGas!,
            },
      diff: {
        stateRoot: new Uint8Array(32),
        receiptsRoot: new Uint8Array(32),
        logsBloom: new Uint8Array(256),
        gasUsed: 0n,
        blockHash: new Uint8Array(32),
        transactions,
        withdrawals: [],
        withdrawalsRoot: new Uint8Array(32),
        blobGasUsed: undefined,
      },
      metadata: { receipts: undefined, newAccountBalances: undefined },
    });
    const [first, ...rest] = built.flashblocks;
    await this.replay.start(payloadId, fb(0, first!).base!, [fb(0, first!)]);
    for (const [i, txs] of rest.entries()) await this.replay.extend(fb(i + 1, txs));
    const write = await this.replay.sealAs(block);
    if (write === undefined) throw new Error(`block ${built.number}: the replay did not seal`);
    this.archive.store.writeBlock(write);
  }
}

/** The canonical import path: blocks executed from the sequencer chain's genesis, roots checked. */
export class ImportChain {
  private constructor(
    private readonly source: SequencerChain,
    readonly archive: Archive,
    readonly executor: BlockExecutor,
  ) {}

  static async open(source: SequencerChain): Promise<ImportChain> {
    const archive = openArchive("import");
    return new ImportChain(source, archive, await ensureGenesis(source.spec, archive.store));
  }

  async import(n: number): Promise<void> {
    this.archive.store.writeBlock(await this.executor.execute(this.source.storedBlock(n)));
  }
}
