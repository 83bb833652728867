// A dry run of a flashblock's (or block's) transactions that learns what they read of the
// upstream's state without waiting for any of it: an EVM of its own over the archive head, the
// pending block's writes so far and what was fetched, where a read of anything not fetched yet
// is noted and answered with a placeholder, so the run goes on and finds more. What it noted is
// then fetched in one batch (prefetcher.ts). Its results are thrown away: only the executor's
// run counts.
//
// The placeholders are chosen so that the code of the usual contracts keeps going: a slot reads
// as a word with a one in every 8-byte lane (a large balance or allowance that passes checks and
// does not overflow when added to; a packed field — reserves, timestamps — non-zero), an account
// as one with a large balance and code that answers any call with eight words of 1 (a `true`, an
// amount, an address), so a call into a contract not fetched yet returns to its caller, which
// goes on to its next call; what that contract itself reads shows on the next run, once its code
// is fetched.
import { type BlockHeader, createBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { MerklePatriciaTrie } from "@ethereumjs/mpt";
import type { TypedTransaction } from "@ethereumjs/tx";
import { bigIntToBytes, KECCAK256_RLP, setLengthLeft } from "@ethereumjs/util";
import { runTx, type VM } from "@ethereumjs/vm";
import type { ChainSpec } from "../chain/genesis.ts";
import type { BlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import type { AccountRecord } from "../chain/types.ts";
import { createNodeVm } from "../exec/nodeVm.ts";
import { OpExecution } from "../exec/op/opExecution.ts";
import { ExecutionState } from "../exec/state/executionState.ts";
import type { HeadReads, HeadStore } from "../exec/state/headReads.ts";
import type { UpstreamState } from "../services/upstreamState.ts";
import { keccak256 } from "../util/crypto.ts";
import { bytesToUnprefixedHex, hexToBytes, trimLeadingZeros } from "../util/hex.ts";
import type { PendingWrites } from "./pendingWrites.ts";
import { ReadSet, senderOf } from "./prefetchPlan.ts";

const EMPTY = new Uint8Array(0);

/** A slot not fetched yet, as the dry run reads it: 1 in each of the word's 8-byte lanes. */
export const PLACEHOLDER_WORD = trimLeadingZeros(
  Uint8Array.from({ length: 32 }, (_, i) => (i % 8 === 7 ? 1 : 0)),
);
const PLACEHOLDER_BALANCE = 1n << 192n;

/** Code that answers any call with eight 32-byte words of 1. */
export const ANSWERING_CODE = Uint8Array.from([
  ...Array.from({ length: 8 }, (_, k) => [0x60, 0x01, 0x60, k * 32, 0x52]).flat(),
  0x61,
  0x01,
  0x00,
  0x60,
  0x00,
  0xf3,
]);
const ANSWERING_HASH = keccak256(ANSWERING_CODE);

/** The block a dry run runs in (a flashblock's base, or a canonical header). */
export type DryRunBlock = {
  readonly number: bigint;
  readonly timestamp: bigint;
  readonly coinbase: Uint8Array;
  readonly gasLimit: bigint;
  readonly baseFeePerGas: bigint | undefined;
  readonly prevRandao: Uint8Array;
  readonly parentBeaconBlockRoot: Uint8Array | undefined;
  readonly extraData: Uint8Array;
};

/** A sealed block's environment as a dry run takes it, from its header. */
export function dryRunBlockOf(h: BlockHeader): DryRunBlock {
  return {
    number: h.number,
    timestamp: h.timestamp,
    coinbase: h.coinbase.bytes,
    gasLimit: h.gasLimit,
    baseFeePerGas: h.baseFeePerGas,
    prevRandao: h.mixHash,
    parentBeaconBlockRoot: h.parentBeaconBlockRoot,
    extraData: h.extraData,
  };
}

/** What one dry run noted, and which of its transactions read something not fetched. */
export type DryRunResult = {
  readonly misses: ReadSet;
  /** Indexes (into the transactions given) of those that missed something. */
  readonly missed: readonly number[];
};

/** Where a run notes its misses; what `ignore` holds (already asked for) is not noted. */
export class Noted {
  readonly misses = new ReadSet();
  /** Whether a placeholder was read since the last look (the transaction running missed). */
  fresh = false;

  constructor(private readonly ignore: ReadSet | undefined) {}

  /**
   * An account not fetched; `hidesCode`: its placeholder stands for code not known yet, so what
   * ran there is not what will run (the transaction needs another run, asked for or not).
   */
  account(address: Uint8Array, hidesCode: boolean): void {
    if (this.ignore?.hasAccount(address) === true) {
      if (hidesCode) this.fresh = true;
      return;
    }
    this.misses.account(address);
    this.fresh = true;
  }

  slot(address: Uint8Array, slot: Uint8Array): void {
    if (this.ignore?.hasSlot(address, slot) === true) return;
    this.misses.slot(address, slot);
    this.fresh = true;
  }
}

type Store = HeadStore;

/** The run's context: the pending writes it starts from, its senders, where misses go. */
export type DryRunContext = {
  pending: PendingWrites | undefined;
  senders: Set<string>;
  misses: Noted;
};

/** Contracts' code a dry run keeps between transactions (the most recently read). */
const KEPT_CODE = 64;

/** The archive head, the pending writes and what was fetched; anything else noted, not awaited. */
export function dryRunReads(store: Store, upstream: UpstreamState, ctx: DryRunContext): HeadReads {
  // Code is named by its hash, so what was read once is what any later read gets: kept across
  // transactions and runs (each clears the state's caches), the same array each time, so the
  // interpreter's jump analysis of a contract (kept by array) is made once, not once a transaction.
  const codes = new Map<string, Uint8Array>();
  const keptCode = (hash: string, code: Uint8Array): Uint8Array => {
    if (codes.size >= KEPT_CODE) codes.delete(codes.keys().next().value!);
    const own = new Uint8Array(code);
    codes.set(hash, own);
    return own;
  };
  const placeholder = (address: Uint8Array): AccountRecord => {
    const sender = ctx.senders.has(bytesToUnprefixedHex(address));
    ctx.misses.account(address, !sender);
    return sender
      ? { nonce: 0n, balance: PLACEHOLDER_BALANCE, codeHash: undefined }
      : { nonce: 1n, balance: PLACEHOLDER_BALANCE, codeHash: ANSWERING_HASH };
  };
  const account = (address: Uint8Array): AccountRecord | undefined => {
    const written = ctx.pending?.account(address);
    if (written !== undefined) return written ?? undefined;
    const local = store.currentAccount(address);
    if (local !== undefined || store.accountKnown(address)) return local;
    const peeked = upstream.peekAccount(address);
    return peeked === undefined ? placeholder(address) : (peeked ?? undefined);
  };
  return {
    position() {
      const number = store.headNumber();
      const hash = number === undefined ? undefined : store.canonicalHash(number);
      return number === undefined || hash === undefined ? undefined : { number, hash };
    },
    stateRoot: () => KECCAK256_RLP,
    account,
    storage(address, slot) {
      const written = ctx.pending?.storage(address, slot);
      if (written !== undefined) return written;
      if (store.slotKnown(address, slot)) return store.currentStorage(address, slot);
      const peeked = upstream.peekAccount(address);
      if (peeked === undefined) {
        ctx.misses.account(address, false);
        ctx.misses.slot(address, slot);
        return PLACEHOLDER_WORD;
      }
      if (peeked?.codeHash === undefined) return EMPTY;
      const value = upstream.peekStorage(address, slot);
      if (value !== undefined) return value;
      ctx.misses.slot(address, slot);
      return PLACEHOLDER_WORD;
    },
    code(codeHash, address) {
      const hash = bytesToUnprefixedHex(codeHash);
      const kept = codes.get(hash);
      if (kept !== undefined) return kept;
      const known =
        ctx.pending?.code(codeHash) ?? store.code(codeHash) ?? upstream.codeByHash(codeHash);
      if (known !== undefined) return keptCode(hash, known);
      if (hash === bytesToUnprefixedHex(ANSWERING_HASH)) return ANSWERING_CODE;
      ctx.misses.account(address, true);
      return EMPTY;
    },
    hasStorage: (address) => store.currentStorageSlots(address).length > 0,
  };
}

export class DryRun {
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly vm: VM,
    private readonly state: ExecutionState,
    private readonly op: OpExecution | undefined,
    private readonly ctx: DryRunContext,
  ) {}

  static async create(spec: ChainSpec, store: Store, upstream: UpstreamState): Promise<DryRun> {
    const ctx: DryRunContext = {
      pending: undefined,
      senders: new Set(),
      misses: new Noted(undefined),
    };
    const trie = new MerklePatriciaTrie({ useKeyHashing: true, common: spec.common });
    const state = new ExecutionState(dryRunReads(store, upstream, ctx), trie, keccak256);
    const vm = await createNodeVm({
      common: spec.common.copy(),
      stateManager: state,
      // BLOCKHASH in a dry run: any hash will do (what it reads is not looked up by it).
      blockHash: () => undefined,
      missing: "zero",
      setHardfork: true,
    });
    const op = spec.op === undefined ? undefined : OpExecution.install(vm, spec.op);
    return new DryRun(vm, state, op, ctx);
  }

  /**
   * What the block's system calls touch (the rules of its fork): EIP-4788's ring slots for its
   * timestamp and EIP-2935's for its parent, written without being read, whose values before
   * the block the archive's change sets need; EIP-7002's and EIP-7251's queues, read at its end.
   */
  systemReads(block: DryRunBlock): ReadSet {
    const common: Common = this.vm.common;
    common.setHardforkBy({ blockNumber: block.number, timestamp: block.timestamp });
    const out = new ReadSet();
    const word = (n: bigint) => setLengthLeft(bigIntToBytes(n), 32);
    if (common.isActivatedEIP(4788)) {
      const length = common.param("historicalRootsLength");
      out.account(BEACON_ROOTS);
      out.slot(BEACON_ROOTS, word(block.timestamp % length));
      out.slot(BEACON_ROOTS, word((block.timestamp % length) + length));
    }
    if (common.isActivatedEIP(2935) && block.number > 0n) {
      const history = addressParam(common, "historyStorageAddress");
      out.account(history);
      out.slot(history, word((block.number - 1n) % common.param("historyServeWindow")));
    }
    for (const [eip, name] of [
      [7002, "withdrawalRequestPredeployAddress"],
      [7251, "consolidationRequestPredeployAddress"],
    ] as const) {
      if (!common.isActivatedEIP(eip)) continue;
      const queue = addressParam(common, name);
      out.account(queue);
      out.account(addressParam(common, "systemAddress"));
      for (let slot = 0n; slot < 4n; slot++) out.slot(queue, word(slot));
    }
    return out;
  }

  /**
   * Runs `txs` in order in `block` on the head with `pending` written over it, noting every
   * read not answered locally (but those in `ignore`: asked for already). Never throws: a
   * transaction that fails here is skipped. One run at a time (they share the EVM).
   */
  run(
    txs: readonly BlockTransaction[],
    block: DryRunBlock,
    pending: PendingWrites | undefined,
    ignore?: ReadSet,
  ): Promise<DryRunResult> {
    const run = this.queue.then(() => this.runNow(txs, block, pending, ignore));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async runNow(
    txs: readonly BlockTransaction[],
    block: DryRunBlock,
    pending: PendingWrites | undefined,
    ignore: ReadSet | undefined,
  ): Promise<DryRunResult> {
    const noted = new Noted(ignore);
    this.ctx.pending = pending;
    this.ctx.misses = noted;
    this.ctx.senders = new Set();
    for (const tx of txs) {
      try {
        this.ctx.senders.add(bytesToUnprefixedHex(senderOf(tx)));
      } catch {
        // no sender: the transaction fails below
      }
    }
    // A new run starts from the head with nothing of the last one (its placeholders included).
    this.state.moveToHead();
    this.state.clearCaches();
    const common: Common = this.vm.common;
    common.setHardforkBy({ blockNumber: block.number, timestamp: block.timestamp });
    const context = createBlock(
      {
        header: {
          number: block.number,
          timestamp: block.timestamp,
          coinbase: block.coinbase,
          gasLimit: block.gasLimit,
          mixHash: block.prevRandao,
          extraData: block.extraData,
          ...(block.baseFeePerGas === undefined ? {} : { baseFeePerGas: block.baseFeePerGas }),
          ...(block.parentBeaconBlockRoot === undefined
            ? {}
            : { parentBeaconBlockRoot: block.parentBeaconBlockRoot }),
        },
      },
      { common, skipConsensusFormatValidation: true },
    );
    this.op?.beginBlock(block.timestamp, block.baseFeePerGas);
    const missed: number[] = [];
    let gasUsed = 0n;
    for (const [i, tx] of txs.entries()) {
      noted.fresh = false;
      // Each transaction reads the head afresh, and keeps its writes only if it read no
      // placeholder: what it wrote from one would hide the placeholder from the next ones, which
      // then would not be noted as having missed.
      this.state.clearCaches();
      await this.state.checkpoint();
      try {
        if (isDepositTx(tx)) {
          if (this.op !== undefined)
            gasUsed += (await this.op.runDeposit(tx, context, gasUsed)).totalGasSpent;
        } else {
          const r = await runTx(this.vm, {
            tx: tx as TypedTransaction,
            block: context,
            blockGasUsed: gasUsed,
            skipNonce: true,
            skipBalance: true,
            skipBlockGasLimitValidation: true,
            skipHardForkValidation: true,
          });
          gasUsed += r.totalGasSpent;
        }
      } catch {
        // A transaction that does not run on placeholders: what it read before is noted.
      }
      if (noted.fresh) {
        missed.push(i);
        await this.state.revert();
      } else await this.state.commit();
    }
    this.ctx.pending = undefined;
    this.state.moveToHead();
    this.state.clearCaches();
    return { misses: noted.misses, missed };
  }
}

/** EIP-4788's contract (the library keeps its address to itself). */
const BEACON_ROOTS = hexToBytes("0x000f3df6d732807ef1319fb7b8bb8522d0beac02");

/** An address parameter of the VM's Common as 20 bytes. */
const addressParam = (common: Common, name: string) =>
  setLengthLeft(bigIntToBytes(common.param(name)), 20);
