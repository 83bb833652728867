// eth_simulateV1 as geth's simulator runs it (internal/ethapi/simulate.go): a chain of blocks on
// top of a base block, each with its overrides, system calls, calls and roots, every header
// field computed as geth computes it so the blocks hash alike.
import { Block, type BlockHeader, paramsBlock } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { getActivePrecompiles, type Log } from "@ethereumjs/evm";
import { encodeReceipt, type VM } from "@ethereumjs/vm";
import type { TransactionView } from "../../chain/blockView.ts";
import type { ChainSpec } from "../../chain/genesis.ts";
import type { PendingSnapshot } from "../../pending/pendingBlock.ts";
import type { StateView } from "../../pending/pendingState.ts";
import type { SimulatedBlock, SimulatedCall, SimulateRequest } from "../../services/simulate.ts";
import { createNodeVm } from "../nodeVm.ts";
import type { TrieNodeSource } from "../trieDb.ts";
import { runningPrecompiles } from "../vmInternals.ts";
import { applyStateOverrides } from "./overrides.ts";
import { assembleBlock, type ChainRules, chainRules, makeHeader, nextBaseFee } from "./simBlock.ts";
import { type CallHost, credit, type GasBudget, runSimCall, WarmPrecompiles } from "./simCall.ts";
import { type ChainBlock, makeHeaders, type PreHeader, sanitizeChain } from "./simChain.ts";
import { SimStateManager } from "./simState.ts";
import { SimTracer } from "./simTracer.ts";
import { postExecution, preExecution } from "./systemCalls.ts";

/** The block the simulation starts from. */
export type SimBase = {
  readonly header: BlockHeader;
  /** Its hash as the node reports it (zero for the pre-confirmed block). */
  readonly hash: Uint8Array;
  /** The state root whose trie the simulated roots build on. */
  readonly trieRoot: Uint8Array;
  /** Set when the base is the pre-confirmed block: its writes are over `trieRoot`. */
  readonly pending: PendingSnapshot | undefined;
};

export type SimContext = {
  readonly spec: ChainSpec;
  readonly source: StateView;
  /** The archive's trie nodes; undefined when it keeps none (state roots are then zero). */
  readonly nodes: TrieNodeSource | undefined;
  readonly canonicalHash: (n: number) => Uint8Array | undefined;
  /** geth's RPC gas cap: the gas all calls of a request may use together (0: no cap). */
  readonly gasCap: bigint;
};

const GWEI = 1_000_000_000n;
const MAX_UINT64 = 2n ** 64n - 1n;

/** A block's environment before its calls run. */
type BlockEnv = {
  readonly common: Common;
  readonly header: BlockHeader;
  readonly evmBlock: Block;
  readonly baseFee: bigint | undefined;
  readonly excessBlobGas: bigint | undefined;
  readonly blobBaseFee: bigint;
};

export class Simulator {
  private readonly rules: ChainRules;
  private readonly host: CallHost;
  /** A Common per fork, with the block library's parameters (blob schedule, base fee). */
  private readonly commons = new Map<string, Common>();

  private constructor(
    private readonly ctx: SimContext,
    private readonly base: SimBase,
    private readonly req: SimulateRequest,
    private readonly vm: VM,
    private readonly state: SimStateManager,
    private readonly tracer: SimTracer,
  ) {
    this.rules = chainRules(ctx.spec);
    this.host = {
      vm,
      state,
      tracer,
      warm: new WarmPrecompiles(),
      validation: req.validation,
      chainId: ctx.spec.chainId,
    };
  }

  static async run(
    req: SimulateRequest,
    base: SimBase,
    ctx: SimContext,
  ): Promise<SimulatedBlock[]> {
    const common = ctx.spec.common.copy();
    const withTrie = ctx.nodes?.trieNode(base.trieRoot) !== undefined ? ctx.nodes : undefined;
    const state = new SimStateManager(ctx.source, common, base.trieRoot, withTrie, { common });
    if (base.pending !== undefined) state.markPending(base.pending.state);
    const baseNumber = Number(base.header.number);
    const hashes: Uint8Array[] = [];
    const vm = await createNodeVm({
      common,
      stateManager: state,
      // BLOCKHASH: the canonical chain up to the base, then the simulated blocks.
      blockHash: (n) =>
        n === baseNumber
          ? base.hash
          : n < baseNumber
            ? ctx.canonicalHash(n)
            : hashes[n - baseNumber - 1],
      missing: "zero",
    });
    const events = vm.evm.events;
    if (events === undefined) throw new Error("the EVM has no event emitter");
    const tracer = new SimTracer(req.traceTransfers);
    tracer.attach(events);
    const sim = new Simulator(ctx, base, req, vm, state, tracer);
    events.on("beforeMessage", (msg) => {
      if (msg.depth !== 0) return;
      // The sender's code was hidden from the library's sender checks only (geth skips them).
      state.disguise(undefined);
      sim.host.warm.apply(vm);
    });
    return sim.execute(hashes);
  }

  /** `hashes` receives each simulated block's hash as it is made (BLOCKHASH reads them). */
  private async execute(hashes: Uint8Array[]): Promise<SimulatedBlock[]> {
    const h = this.base.header;
    const baseFields = {
      number: h.number,
      timestamp: h.timestamp,
      coinbase: h.coinbase.bytes,
      difficulty: h.difficulty,
      gasLimit: h.gasLimit,
    };
    const blocks = sanitizeChain(this.req.blocks, baseFields);
    const headers = makeHeaders(blocks, baseFields, this.rules);
    const budget: GasBudget = { remaining: this.ctx.gasCap === 0n ? MAX_UINT64 : this.ctx.gasCap };
    const out: SimulatedBlock[] = [];
    let parent = h;
    let parentHash = this.base.hash;
    for (let i = 0; i < blocks.length; i++) {
      const r = await this.processBlock(blocks[i]!, headers[i]!, parent, parentHash, budget);
      out.push(r.result);
      parent = r.header;
      parentHash = r.result.block.header.hash;
      hashes.push(parentHash);
    }
    return out;
  }

  /** The block's header fields that depend on its parent, and the EVM's view of it. */
  private blockEnv(
    pre: PreHeader,
    parent: BlockHeader,
    parentHash: Uint8Array,
    blobBaseFeeOverride: bigint | undefined,
  ): BlockEnv {
    this.vm.common.setHardforkBy({ blockNumber: pre.number, timestamp: pre.timestamp });
    // A fork change rebuilds the EVM's opcode table: the tracer's handlers go back in.
    this.tracer.instrument(this.vm.evm);
    const fork = this.vm.common.hardfork();
    let common = this.commons.get(fork);
    if (common === undefined) {
      common = this.ctx.spec.common.copy();
      common.setHardfork(fork);
      common.updateParams(paramsBlock);
      this.commons.set(fork, common);
    }
    const cancun = common.isActivatedEIP(4844);
    // Without validation a block's base fee is zero unless overridden (geth's NoBaseFee).
    const baseFee = !common.isActivatedEIP(1559)
      ? undefined
      : (pre.baseFeePerGas ?? (this.req.validation ? nextBaseFee(parent) : 0n));
    const excessBlobGas = !cancun
      ? undefined
      : parent.common.isActivatedEIP(4844)
        ? parent.calcNextExcessBlobGas(common)
        : 0n;
    const header = makeHeader(
      {
        parentHash,
        coinbase: pre.coinbase,
        difficulty: pre.difficulty,
        number: pre.number,
        gasLimit: pre.gasLimit,
        timestamp: pre.timestamp,
        mixHash: pre.mixHash,
        ...(baseFee === undefined ? {} : { baseFeePerGas: baseFee }),
        ...(excessBlobGas === undefined ? {} : { excessBlobGas, blobGasUsed: 0n }),
        ...(pre.parentBeaconBlockRoot === undefined
          ? {}
          : { parentBeaconBlockRoot: pre.parentBeaconBlockRoot }),
      },
      common,
    );
    const blobBaseFee = blobBaseFeeOverride ?? (cancun ? header.getBlobGasPrice() : 0n);
    // An overridden blob base fee is what BLOBBASEFEE and blob transactions see.
    if (blobBaseFeeOverride !== undefined)
      Object.assign(header, { getBlobGasPrice: () => blobBaseFee });
    // The block around this very header (which is completed in place once the calls ran).
    const withdrawals = common.isActivatedEIP(4895) ? [] : undefined;
    const evmBlock = new Block(header, [], [], withdrawals, { common });
    return { common, header, evmBlock, baseFee, excessBlobGas, blobBaseFee };
  }

  /** The fork's precompiles, then the block's state overrides (which may move or drop some). */
  private async applyOverrides(block: ChainBlock): Promise<void> {
    const { vm } = this;
    const running = runningPrecompiles(vm.evm);
    const fork = getActivePrecompiles(vm.common);
    running.clear();
    for (const [k, v] of fork) running.set(k, v);
    await applyStateOverrides(block.stateOverrides, this.state, running);
    this.host.warm.setBlock(new Set(running.keys()), new Set(fork.keys()));
  }

  private async processBlock(
    block: ChainBlock,
    pre: PreHeader,
    parent: BlockHeader,
    parentHash: Uint8Array,
    budget: GasBudget,
  ): Promise<{ result: SimulatedBlock; header: BlockHeader }> {
    const { vm, state, tracer } = this;
    const env = this.blockEnv(pre, parent, parentHash, block.overrides?.blobBaseFee);
    const prague = env.common.isActivatedEIP(7685);
    await this.applyOverrides(block);
    tracer.startBlock();
    await preExecution(vm, env.evmBlock, pre.parentBeaconBlockRoot, parentHash, prague);

    const raws: Uint8Array[] = [];
    const views: TransactionView[] = [];
    const senders: Uint8Array[] = [];
    const receipts: Uint8Array[] = [];
    const blooms: Uint8Array[] = [];
    const calls: SimulatedCall[] = [];
    const keptLogs: Log[] = [];
    let gasUsed = 0n;
    let blobGasUsed = 0n;
    for (const call of block.calls) {
      const r = await runSimCall(this.host, call, { ...env, gasUsed }, budget);
      raws.push(r.raw);
      views.push(r.view);
      senders.push(r.from);
      receipts.push(encodeReceipt(r.result.receipt, r.type as 0));
      blooms.push(r.result.bloom.bitvector);
      calls.push(r.call);
      if (r.call.status === 1)
        for (const l of r.call.logs) keptLogs.push([l.address, [...l.topics], l.data]);
      gasUsed += r.result.totalGasSpent;
      blobGasUsed += r.result.blobGasUsed ?? 0n;
    }
    const requestsHash = prague
      ? await postExecution(vm, env.evmBlock, keptLogs, this.rules.depositContract)
      : undefined;
    // Finalize: the PoW reward before the merge, the withdrawals (a Shanghai body's) after it.
    if (pre.difficulty !== 0n) await credit(state, pre.coinbase, vm.common.param("minerReward"));
    else if (env.common.isActivatedEIP(4895))
      for (const w of block.withdrawals) await credit(state, w.address, w.amount * GWEI);

    const { header, view } = await assembleBlock({
      header: env.header,
      fields: {
        stateRoot: await state.getStateRoot(),
        gasUsed,
        ...(env.excessBlobGas === undefined ? {} : { blobGasUsed }),
        ...(requestsHash === undefined ? {} : { requestsHash }),
      },
      common: env.common,
      transactions: raws,
      views,
      receipts,
      blooms,
      withdrawals: block.withdrawals,
    });
    return { result: { block: view, senders, calls }, header };
  }
}
