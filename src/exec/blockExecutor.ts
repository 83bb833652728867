// Executes blocks with the EVM library on top of the archive and turns each into one BlockWrite:
// header, body, receipts and the exact state diff, verified against the block's own roots; and
// a chain's first block (its genesis, or a fork's base block F). The state it runs on is
// ExecutorCore's (executorCore.ts).
import { type Block, createBlock, createBlockHeaderFromRLP } from "@ethereumjs/block";
import { Account, Address } from "@ethereumjs/util";
import { type RunBlockResult, runBlock } from "@ethereumjs/vm";
import { type ChainSpec, commonAt, genesisBlock } from "../chain/genesis.ts";
import type { BlockWrite } from "../chain/types.ts";
import type { ChainStore } from "../store/archive.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToHex, equalBytes, trimLeadingZeros } from "../util/hex.ts";
import { ExecutorCore, type ForkBaseWrite, type ForkedExecution } from "./executorCore.ts";
import { runOpBlock } from "./op/opBlock.ts";
import type { OpExecution } from "./op/opExecution.ts";
import { buildReceipts } from "./receipts.ts";
import { validateHeader } from "./validateHeader.ts";

/** A block refused by import: names the block and what did not match. Nothing of it is stored. */
export class BlockRejectedError extends FlashnodeError {
  readonly code = "BLOCK_REJECTED";
  constructor(
    readonly blockNumber: bigint,
    readonly blockHash: string,
    readonly reason: string,
  ) {
    super(`block ${blockNumber} (${blockHash}) rejected: ${reason}`);
  }
}

export class BlockExecutor extends ExecutorCore {
  /** Positions the executor on the archive's head state (or an empty state for a new archive). */
  static async open(
    spec: ChainSpec,
    store: ChainStore,
    fork?: ForkedExecution,
  ): Promise<BlockExecutor> {
    return new BlockExecutor(...(await ExecutorCore.parts(spec, store, fork)));
  }

  /** Builds the genesis state from the allocations; the block and its write. */
  async genesis(): Promise<{ block: Block; write: BlockWrite }> {
    this.beginBlock();
    await this.state.checkpoint();
    for (const [hex, acct] of this.spec.alloc) {
      const address = new Address(Buffer.from(hex, "hex"));
      await this.state.putAccount(address, new Account(acct.nonce, acct.balance));
      if (acct.code.length > 0) await this.state.putCode(address, acct.code);
      for (const [slot, value] of acct.storage) {
        const key = new Uint8Array(32);
        key.set(slot.subarray(Math.max(0, slot.length - 32)), 32 - Math.min(32, slot.length));
        await this.state.putStorage(address, key, trimLeadingZeros(value));
      }
    }
    await this.state.commit();
    const stateRoot = await this.state.getStateRoot();
    const block = genesisBlock(this.spec, stateRoot);
    return { block, write: await this.collectWrite(block, []) };
  }

  /**
   * A forked chain's base block F: the upstream's header, an empty body (F's transactions are
   * the upstream's, served from it), and the base writes (dev accounts funded, system contracts
   * the upstream lacks) on top of the upstream's state. The chain's trie holds only those writes:
   * its root is recorded beside the header, whose own root is the upstream's.
   */
  async forkBase(
    headerRlp: Uint8Array,
    writes: readonly ForkBaseWrite[],
  ): Promise<{ write: BlockWrite; stateRoot: Uint8Array }> {
    const header = createBlockHeaderFromRLP(headerRlp, {
      common: this.spec.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    });
    this.beginBlock();
    await this.state.checkpoint();
    for (const w of writes) {
      const address = new Address(w.address);
      const account = (await this.state.getAccount(address)) ?? new Account();
      if (w.balance !== undefined) account.balance = w.balance;
      await this.state.putAccount(address, account);
      if (w.code !== undefined) await this.state.putCode(address, w.code);
    }
    await this.state.commit();
    const stateRoot = await this.state.getStateRoot();
    const block = createBlock(
      { header, ...(header.common.isActivatedEIP(4895) ? { withdrawals: [] } : {}) },
      { common: header.common, skipConsensusFormatValidation: true },
    );
    const write = await this.collectWrite(block, []);
    return { write: { ...write, headerRlp }, stateRoot };
  }

  /**
   * Executes a block on top of the archive head and verifies every root it commits to; a
   * followed chain's block (`ownStateRoot`) all but its state root, which covers the upstream's
   * whole state: the root of this node's own trie is recorded beside it instead.
   */
  async execute(block: Block, opts: { ownStateRoot?: boolean } = {}): Promise<BlockWrite> {
    const own = opts.ownStateRoot === true;
    const number = block.header.number;
    const hash = bytesToHex(block.hash());
    const reject = (reason: string): never => {
      this.trieDb.discardPending();
      throw new BlockRejectedError(number, hash, reason);
    };
    const head = this.store.headNumber();
    if (head === undefined) return reject("archive has no genesis");
    if (number !== BigInt(head) + 1n)
      return reject(`expected block ${head + 1} next (archive head is ${head})`);
    const parent = ExecutorCore.storedHeader(this.spec, this.store, head);
    const headerProblem = validateHeader(block, parent, own);
    if (headerProblem !== undefined) return reject(headerProblem);

    if (this.op !== undefined) return this.executeOp(block, reject, own);
    this.beginBlock();
    let result: RunBlockResult;
    try {
      result = await runBlock(this.vm, {
        block,
        generate: true,
        skipHeaderValidation: true,
        clearCache: false,
      });
    } catch (e) {
      await this.resetToHead();
      return reject(`execution failed: ${(e as Error).message}`);
    }
    const h = block.header;
    const mismatch = (what: string, want: Uint8Array | bigint, got: Uint8Array | bigint) =>
      `${what} mismatch: header has ${typeof want === "bigint" ? want : bytesToHex(want)}, execution gives ${typeof got === "bigint" ? got : bytesToHex(got)}`;
    let problem: string | undefined;
    if (result.gasUsed !== h.gasUsed) problem = mismatch("gas used", h.gasUsed, result.gasUsed);
    else if (!equalBytes(result.receiptsRoot, h.receiptTrie))
      problem = mismatch("receipts root", h.receiptTrie, result.receiptsRoot);
    else if (!equalBytes(result.logsBloom, h.logsBloom))
      problem = mismatch("logs bloom", h.logsBloom, result.logsBloom);
    else if (!own && !equalBytes(result.stateRoot, h.stateRoot))
      problem = mismatch("state root", h.stateRoot, result.stateRoot);
    else if (
      h.requestsHash !== undefined &&
      result.requestsHash !== undefined &&
      !equalBytes(h.requestsHash, result.requestsHash)
    )
      problem = mismatch("requests hash", h.requestsHash, result.requestsHash);
    if (problem !== undefined) {
      await this.resetToHead();
      return reject(problem);
    }
    const common = commonAt(this.spec, block.header.number, block.header.timestamp);
    const write = await this.collectWrite(block, buildReceipts(block, result.receipts, common));
    return own ? { ...write, localStateRoot: result.stateRoot } : write;
  }

  /**
   * An OP-stack block: deposits and the L1 fee run on the path the dev sequencer builds with
   * (src/exec/op/opBlock.ts); the rebuilt header must equal the imported one.
   */
  private async executeOp(
    block: Block,
    reject: (reason: string) => never,
    ownStateRoot: boolean,
  ): Promise<BlockWrite> {
    const op = this.op as OpExecution;
    const common = commonAt(this.spec, block.header.number, block.header.timestamp);
    let run: Awaited<ReturnType<typeof runOpBlock>>;
    try {
      run = await runOpBlock(block, (hd) => this.openBuilder(hd), op, common);
    } catch (e) {
      await this.resetToHead();
      return reject(`execution failed: ${(e as Error).message}`);
    }
    const h = block.header;
    const g = run.built.header;
    const checks: [string, Uint8Array | bigint | undefined, Uint8Array | bigint | undefined][] = [
      ["gas used", h.gasUsed, g.gasUsed],
      ["transactions root", h.transactionsTrie, g.transactionsTrie],
      ["receipts root", h.receiptTrie, g.receiptTrie],
      ["logs bloom", h.logsBloom, g.logsBloom],
      ["state root", h.stateRoot, g.stateRoot],
      ["requests hash", h.requestsHash, g.requestsHash],
    ];
    for (const [what, want, got] of checks) {
      if (want === undefined || got === undefined) continue;
      if (ownStateRoot && what === "state root") continue;
      const same = typeof want === "bigint" ? want === got : equalBytes(want, got as Uint8Array);
      if (same) continue;
      await this.resetToHead();
      const show = (v: Uint8Array | bigint) => (typeof v === "bigint" ? String(v) : bytesToHex(v));
      return reject(`${what} mismatch: header has ${show(want)}, execution gives ${show(got)}`);
    }
    const write = await this.collectWrite(block, run.receipts);
    return ownStateRoot ? { ...write, localStateRoot: g.stateRoot } : write;
  }
}
