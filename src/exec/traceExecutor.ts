// debug_trace*: re-executes a block's transactions on its parent's state (read from the
// archive's flat tables, as eth_call reads any block) with a tracer watching the ones asked
// for, or traces a call on a block's state, as geth does.
import { Block, createBlock, createBlockHeaderFromRLP } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import type { TypedTransaction } from "@ethereumjs/tx";
import {
  Address,
  bigIntToAddressBytes,
  bigIntToBytes,
  eoaCode7702RecoverAuthority,
  setLengthLeft,
} from "@ethereumjs/util";
import { type RunTxOpts, runTx, type VM } from "@ethereumjs/vm";
import { type ChainSpec, commonAt } from "../chain/genesis.ts";
import { blockFromRlp, decodeBlockTransaction } from "../chain/op/blockTx.ts";
import { isDepositTx } from "../chain/op/depositTx.ts";
import { blockRlp } from "../chain/rawEncoding.ts";
import type { StateView } from "../pending/pendingState.ts";
import type { PendingBase, PendingTransaction } from "../pending/types.ts";
import type { CallRequest } from "../services/callRequest.ts";
import type { TraceOptions, TraceRequest } from "../services/calls.ts";
import { bytesToHex, hexToBytes } from "../util/hex.ts";
import {
  type CallBlockEnv,
  CallFailedError,
  callBlock,
  callTransaction,
  RPC_GAS_CAP,
  TX_GAS_CAP_7825,
  txFailure,
} from "./callExecutor.ts";
import { flatVm } from "./callVms.ts";
import { applyStateWrite, decodeStateWrite } from "./devWrites.ts";
import type { FlatStateManager } from "./flatStateManager.ts";
import { placeholderSender, withPlaceholderSender } from "./impersonation.ts";
import { OpExecution } from "./op/opExecution.ts";
import { TraceBridge, TraceStoppedError } from "./trace/bridge.ts";
import { createTracer, TraceSetupError, traceDeadline } from "./trace/tracers.ts";

/** What a trace reads of the chain. */
export type TraceChain = {
  /** Header and body RLP of canonical block `number`. */
  block(number: number): { headerRlp: Uint8Array; bodyRlp: Uint8Array } | undefined;
  /** State after block `number`. */
  state(number: number): StateView;
  blockHash(number: number): Uint8Array | undefined;
  /** A dev block's state writes, each after that many transactions (absent: none). */
  devWrites?(number: number): ReadonlyArray<readonly [number, Uint8Array]>;
};

/** EIP-4788's beacon roots contract. */
const BEACON_ROOTS = hexToBytes("0x000f3df6d732807ef1319fb7b8bb8522d0beac02");

const failure = (message: string) => new CallFailedError(message, -32000, undefined);

/**
 * A transaction as the block ran it: an impersonated sender's (src/exec/impersonation.ts) runs
 * as that sender, a contract one included (the sequencer let it send).
 */
function asSent(vm: VM, tx: TypedTransaction): TypedTransaction {
  const sender = placeholderSender(tx);
  if (sender === undefined) return tx;
  const sent = withPlaceholderSender(tx, vm.common);
  (vm.stateManager as FlatStateManager).hideSenderCode(sent.getSenderAddress());
  return sent;
}

/** A block to replay, with its transactions' hashes (a pre-confirmed block has no hash itself). */
type Replay = { readonly block: Block; readonly hashes: readonly Uint8Array[] };

export class TraceExecutor {
  constructor(
    private readonly spec: ChainSpec,
    private readonly chain: TraceChain,
    /** --rpc-gascap (0: none, then geth's half of 2^64). */
    private readonly gasCap: bigint = RPC_GAS_CAP,
  ) {}

  trace(request: TraceRequest, options: TraceOptions): Promise<string> {
    switch (request.kind) {
      case "block":
        return this.traceBlock(this.sealedBlock(request.number), undefined, options);
      case "pendingBlock":
        return this.traceBlock(
          this.pendingBlock(request.base, request.transactions),
          undefined,
          options,
        );
      case "transaction":
        return this.traceBlock(this.sealedBlock(request.number), request.index, options);
      case "call":
        return this.traceCall(request.request, request.number, request.txIndex, options);
    }
  }

  private sealedBlock(number: number): Replay {
    const raw = this.chain.block(number);
    if (raw === undefined) throw failure(`block #${number} not found`);
    const block = blockFromRlp(blockRlp(raw.headerRlp, raw.bodyRlp), {
      common: this.spec.common,
      setHardfork: true,
    });
    return { block, hashes: block.transactions.map((tx) => tx.hash()) };
  }

  /** The pre-confirmed block as the block it will be sealed as (its hash is not known yet). */
  private pendingBlock(b: PendingBase, transactions: readonly PendingTransaction[]): Replay {
    const common = commonAt(this.spec, BigInt(b.number), b.timestamp);
    const block = createBlock(
      {
        header: {
          number: BigInt(b.number),
          parentHash: b.parentHash,
          timestamp: b.timestamp,
          gasLimit: b.gasLimit,
          baseFeePerGas: b.baseFeePerGas,
          coinbase: b.coinbase,
          mixHash: b.prevRandao,
          extraData: b.extraData,
          ...(common.isActivatedEIP(4788)
            ? { parentBeaconBlockRoot: b.parentBeaconBlockRoot }
            : {}),
          ...(common.isActivatedEIP(4844) ? { excessBlobGas: b.excessBlobGas } : {}),
        },
      },
      { common, skipConsensusFormatValidation: true },
    );
    // Deposits cannot go through the library's block constructor: the block is assembled.
    const txs = transactions.map((t) => decodeBlockTransaction(t.raw, common));
    return {
      block: new Block(block.header, txs as TypedTransaction[], [], block.withdrawals, { common }),
      hashes: transactions.map((t) => t.hash),
    };
  }

  /**
   * Applies a dev block's state writes due before transaction `i` (anvil_setBalance & co. ran
   * between its transactions, src/exec/devWrites.ts); each runs once, in order.
   */
  private writesOf(block: Block): (vm: VM, i: number) => Promise<void> {
    const list = this.chain.devWrites?.(Number(block.header.number)) ?? [];
    let next = 0;
    return async (vm, i) => {
      for (; next < list.length && list[next]![0] <= i; next++) {
        await applyStateWrite(vm.stateManager, decodeStateWrite(list[next]![1]));
        // As the sequencer did: the write may have changed the L1 fee parameters.
        this.ops.get(vm)?.forgetFeeParams();
      }
    };
  }

  /**
   * A VM on the state before `block`'s transactions (its parent's, plus the system writes); on
   * an OP-stack chain with the L1 fee and deposits as the block ran them.
   */
  private async before(block: Block): Promise<VM> {
    const h = block.header;
    const common = commonAt(this.spec, h.number, h.timestamp);
    const { vm } = await flatVm(common, this.chain.state(Number(h.number) - 1), (n) =>
      this.chain.blockHash(n),
    );
    await systemWrites(vm, block);
    if (this.spec.op !== undefined) {
      const op = OpExecution.install(vm, this.spec.op);
      op.beginBlock(h.timestamp, h.baseFeePerGas);
      this.ops.set(vm, op);
    }
    return vm;
  }

  private readonly ops = new WeakMap<VM, OpExecution>();

  /** Runs a block's transaction untraced (deposits by the OP deposit runner); its log count. */
  private async replay(vm: VM, tx: Block["transactions"][number], block: Block, gasUsed: bigint) {
    const op = this.ops.get(vm);
    if (op !== undefined && isDepositTx(tx)) {
      const r = await op.runDeposit(tx, block, gasUsed);
      return { logs: r.receipt.logs.length, gas: r.totalGasSpent };
    }
    const r = await runTx(vm, {
      tx,
      block,
      skipBlockGasLimitValidation: true,
      blockGasUsed: gasUsed,
    });
    return { logs: r.receipt.logs.length, gas: r.totalGasSpent };
  }

  private async traceBlock(
    replay: Replay,
    only: number | undefined,
    options: TraceOptions,
  ): Promise<string> {
    const { block, hashes } = replay;
    if (block.header.number === 0n) throw failure("genesis is not traceable");
    const vm = await this.before(block);
    const writes = this.writesOf(block);
    const out: string[] = [];
    let logs = 0;
    let gasUsed = 0n;
    for (let i = 0; i < block.transactions.length; i++) {
      await writes(vm, i);
      const tx = asSent(vm, block.transactions[i]!);
      const opts: RunTxOpts = {
        tx,
        block,
        skipBlockGasLimitValidation: true,
        blockGasUsed: gasUsed,
      };
      if (only !== undefined && i < only) {
        const r = await this.replay(vm, tx, block, gasUsed);
        logs += r.logs;
        gasUsed += r.gas;
        continue;
      }
      const traced = await traceTx(vm, opts, block, options, logs, undefined, this.ops.get(vm));
      if (traced.cumulative !== undefined) gasUsed = traced.cumulative;
      if (only !== undefined) return traced.json;
      logs += traced.logs;
      out.push(`{"txHash":"${bytesToHex(hashes[i]!)}","result":${traced.json}}`);
    }
    if (only !== undefined) throw failure("transaction not found");
    return `[${out.join(",")}]`;
  }

  private async traceCall(
    req: CallRequest,
    number: number,
    txIndex: number | undefined,
    options: TraceOptions,
  ): Promise<string> {
    let vm: VM;
    let logs = 0;
    const raw = this.chain.block(number);
    if (raw === undefined) throw failure(`block #${number} not found`);
    const h = createBlockHeaderFromRLP(raw.headerRlp, {
      common: this.spec.common,
      setHardfork: true,
    });
    if (txIndex === undefined) {
      const common = commonAt(this.spec, h.number, h.timestamp);
      ({ vm } = await flatVm(common, this.chain.state(number), (n) => this.chain.blockHash(n)));
    } else {
      // geth's StateAtTransaction: the state just before transaction `txIndex` of the block.
      const replay = this.sealedBlock(number);
      const txs = replay.block.transactions;
      if (number === 0) throw failure("no transaction in genesis");
      if (txIndex >= txs.length && !(txIndex === 0 && txs.length === 0))
        throw failure(
          `transaction index ${txIndex} out of range for block ${bytesToHex(replay.block.hash())}`,
        );
      vm = await this.before(replay.block);
      const writes = this.writesOf(replay.block);
      let gasUsed = 0n;
      for (const [i, tx] of txs.slice(0, txIndex).entries()) {
        await writes(vm, i);
        const r = await this.replay(vm, asSent(vm, tx), replay.block, gasUsed);
        logs += r.logs;
        gasUsed += r.gas;
      }
      await writes(vm, txIndex);
      // A traced call carries no rollup cost data: no L1 fee (op-geth).
      const op = this.ops.get(vm);
      if (op !== undefined) op.charging = false;
    }
    const env: CallBlockEnv = {
      number: h.number,
      timestamp: h.timestamp,
      gasLimit: h.gasLimit,
      baseFeePerGas: h.baseFeePerGas,
      coinbase: h.coinbase.bytes,
      prevRandao: h.mixHash,
      excessBlobGas: h.excessBlobGas,
      blockHash: (n) => this.chain.blockHash(n),
    };
    // geth: the RPC gas cap is the default and the most (no block or EIP-7825 limit here).
    const cap = this.gasCap > 0n ? this.gasCap : 2n ** 63n - 1n;
    const gas = req.gas !== undefined && req.gas < cap ? req.gas : cap;
    const from = new Address(req.from ?? new Uint8Array(20));
    const nonce = req.nonce ?? (await vm.stateManager.getAccount(from))?.nonce ?? 0n;
    // geth skips the transaction checks here, EIP-7825's gas cap among them; the library
    // checks it only when the transaction is made.
    const capped = vm.common.isActivatedEIP(7825) && gas > TX_GAS_CAP_7825;
    const tx = callTransaction(req, capped ? TX_GAS_CAP_7825 : gas, nonce, vm.common);
    if (capped) Object.assign(tx, { gasLimit: gas });
    const block = callBlock(env, gas, zeroGasPrice(req, h.baseFeePerGas), vm.common);
    const opts: RunTxOpts = {
      tx,
      block,
      skipNonce: true,
      skipBlockGasLimitValidation: true,
      skipHardForkValidation: true,
    };
    return (await traceTx(vm, opts, block, options, logs, req)).json;
  }
}

/** geth's traceCall runs with no base fee when the call's effective gas price is zero. */
function zeroGasPrice(req: CallRequest, baseFee: bigint | undefined): boolean {
  if (req.gasPrice !== undefined) return req.gasPrice === 0n;
  const feeCap = req.maxFeePerGas ?? 0n;
  const tip = req.maxPriorityFeePerGas ?? 0n;
  return feeCap === 0n || (tip === 0n && (baseFee ?? 0n) === 0n);
}

/** The state writes a block makes before its transactions (EIP-4788 and EIP-2935). */
async function systemWrites(vm: VM, block: Block): Promise<void> {
  const common = vm.common;
  const h = block.header;
  const state = vm.stateManager;
  if (common.isActivatedEIP(4788) && h.parentBeaconBlockRoot !== undefined) {
    const address = new Address(BEACON_ROOTS);
    if ((await state.getCode(address)).length > 0) {
      const length = BigInt(common.param("historicalRootsLength"));
      const index = h.timestamp % length;
      await state.putStorage(
        address,
        setLengthLeft(bigIntToBytes(index), 32),
        bigIntToBytes(h.timestamp),
      );
      await state.putStorage(
        address,
        setLengthLeft(bigIntToBytes(index + length), 32),
        h.parentBeaconBlockRoot,
      );
    }
  }
  if (common.isActivatedEIP(2935)) {
    const address = new Address(bigIntToAddressBytes(common.param("historyStorageAddress")));
    if ((await state.getCode(address)).length > 0) {
      const slot = (h.number - 1n) % common.param("historyServeWindow");
      await state.putStorage(address, setLengthLeft(bigIntToBytes(slot), 32), h.parentHash);
    }
  }
  await vm.evm.journal.cleanup();
}

function authorities(tx: TypedTransaction): Address[] {
  if (!("authorizationList" in tx)) return [];
  const out: Address[] = [];
  for (const item of tx.authorizationList) {
    try {
      out.push(eoaCode7702RecoverAuthority(item));
    } catch {
      // geth skips an authorization whose signer cannot be recovered.
    }
  }
  return out;
}

/** geth's traceTx: one transaction under a tracer, within the trace's timeout. */
async function traceTx(
  vm: VM,
  opts: RunTxOpts,
  block: Block,
  options: TraceOptions,
  logsBefore: number,
  call?: CallRequest,
  op?: OpExecution,
): Promise<{ json: string; logs: number; cumulative?: bigint }> {
  const common: Common = vm.common;
  let bridge: TraceBridge;
  let tracer: ReturnType<typeof createTracer>;
  try {
    tracer = createTracer(options, {
      prestate: { cancun: common.isActivatedEIP(6780), prague: common.isActivatedEIP(7702) },
      logsBefore,
    });
    bridge = new TraceBridge(tracer, traceDeadline(options, Date.now()), {
      eip150: common.gteHardfork("tangerineWhistle"),
      sstoreSentry: common.isActivatedEIP(2200),
    });
  } catch (e) {
    if (e instanceof TraceSetupError) throw failure(e.message);
    throw e;
  }
  const tx = opts.tx;
  const state = vm.stateManager;
  await tracer.txStart?.({
    from: tx.getSenderAddress(),
    to: tx.to,
    gasLimit: tx.gasLimit,
    coinbase: block.header.coinbase,
    authorities: authorities(tx),
    state,
  });
  const detach = bridge.attach(vm.evm);
  let result: {
    totalGasSpent: bigint;
    receipt: { logs: unknown[]; cumulativeBlockGasUsed: bigint };
  };
  try {
    // An OP-stack deposit runs by the deposit runner, watched by the same tracer.
    result =
      op !== undefined && isDepositTx(tx)
        ? await op.runDeposit(tx, block, opts.blockGasUsed ?? 0n)
        : await runTx(vm, opts);
  } catch (e) {
    if (e instanceof TraceStoppedError) throw failure(e.message);
    const message = (e as Error).message;
    throw failure(`tracing failed: ${call === undefined ? message : txFailure(message, call)}`);
  } finally {
    detach();
  }
  try {
    bridge.finish();
  } catch (e) {
    throw failure((e as Error).message);
  }
  await tracer.txEnd?.({ gasUsed: result.totalGasSpent, state });
  return {
    json: tracer.result(),
    logs: result.receipt.logs.length,
    cumulative: result.receipt.cumulativeBlockGasUsed,
  };
}
