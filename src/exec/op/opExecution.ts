// OP-stack execution on the EVM library's VM (op-geth core/state_transition.go):
// - deposits run here, not through the library's runTx: mint to `from` before anything else (kept
//   even when the deposit fails), no signature, no nonce check but a nonce increment, gas price 0,
//   no coinbase tip; post-Regolith they report the gas actually used (with refunds and
//   EIP-7623's floor), and a deposit that cannot run is still included: its state changes after
//   the mint are undone, its nonce is bumped and it reports all its gas;
// - every other transaction pays the L1 data fee up front (hooked into runTx through the VM's
//   beforeTx/afterTx events, so the charge is inside the transaction's own checkpoint and tracers
//   see it) and its base fee and L1 fee are credited to the BaseFeeVault and L1FeeVault (the tip
//   goes to the coinbase, the SequencerFeeVault, as runTx already does).
import type { Block } from "@ethereumjs/block";
import type { TypedTransaction } from "@ethereumjs/tx";
import { Account, Address, bytesToUnprefixedHex, hexToBytes } from "@ethereumjs/util";
import { Bloom, type VM } from "@ethereumjs/vm";
import {
  BASE_FEE_VAULT,
  L1_BLOCK,
  L1_FEE_VAULT,
  type OpConfig,
  type OpRules,
  opRulesAt,
} from "../../chain/op/config.ts";
import { type DepositTx, isDepositTx } from "../../chain/op/depositTx.ts";
import type { L1FeeParams } from "../../chain/op/l1Info.ts";
import { encodingOf, senderOf } from "../../chain/txFacts.ts";
import { bytesToBigInt, bytesToHex } from "../../util/hex.ts";
import { type BedrockFeeParams, type L1FeeInfo, l1FeeOf } from "./l1Cost.ts";

/** What a deposit's run gives back: the shape the block builder keeps for every transaction. */
export type DepositResult = {
  readonly totalGasSpent: bigint;
  readonly blockGasSpent: bigint;
  readonly amountSpent: bigint;
  readonly minerValue: bigint;
  readonly gasRefund: bigint;
  readonly bloom: Bloom;
  readonly receipt: {
    readonly status: 0 | 1;
    readonly cumulativeBlockGasUsed: bigint;
    readonly bitvector: Uint8Array;
    readonly logs: [Uint8Array, Uint8Array[], Uint8Array][];
  };
  readonly execResult: {
    readonly executionGasUsed: bigint;
    readonly returnValue: Uint8Array;
    readonly exceptionError?: unknown;
    readonly logs?: [Uint8Array, Uint8Array[], Uint8Array][];
  };
  /** The sender's nonce the deposit used (its receipt's depositNonce). */
  readonly depositNonce: bigint;
  /** Set when the deposit could not run at all (op-geth's "failed deposit: …"). */
  readonly failure: string | undefined;
};

function slot(n: number): Uint8Array {
  const s = new Uint8Array(32);
  s[31] = n;
  return s;
}

const L1_BASE_FEE_SLOT = slot(1);
const L1_FEE_SCALARS_SLOT = slot(3);
const OVERHEAD_SLOT = slot(5);
const SCALAR_SLOT = slot(6);
const L1_BLOB_BASE_FEE_SLOT = slot(7);

/** The L1 fee parameters of a block and the rules they are applied with. */
export type FeeParams = {
  readonly params: L1FeeParams;
  readonly bedrock: BedrockFeeParams;
  readonly rules: OpRules;
};

/** The OP rules and fee plumbing of one VM; `beginBlock` positions it on a block. */
export class OpExecution {
  private rules: OpRules = { regolith: false, canyon: false, ecotone: false, fjord: false };
  private baseFee = 0n;
  /** L1 fee of each non-deposit transaction run since the block began (receipts read it). */
  private readonly l1Fees = new WeakMap<object, L1FeeInfo>();
  /**
   * The L1 fee parameters, read from the L1Block predeploy at their first use in a block (after
   * its deposits, the L1-info one writing them), as op-geth's L1 cost function reads them once
   * per block; forgotten when a block begins, after each deposit and after a dev method's write.
   */
  private feeParamsNow: FeeParams | undefined;
  /** Counts the times the parameters were forgotten: a fee computed under an older count is stale. */
  private feeEpoch = 0;
  /** Each transaction's fee as last computed (the pool's check, then its execution), by epoch. */
  private readonly feeByTx = new WeakMap<object, { epoch: number; fee: L1FeeInfo }>();
  /** Off for calls: an eth_call carries no rollup cost data, so op-geth charges no L1 fee. */
  charging = true;

  private constructor(
    private readonly vm: VM,
    readonly config: OpConfig,
  ) {}

  /**
   * Hooks the L1 fee and the vault credits into `vm`'s runTx. The VM awaits a two-argument
   * listener through its callback; handing it the work's promise makes a failure (a sender who
   * cannot pay the L1 fee) reject runTx inside the transaction's checkpoint.
   */
  static install(vm: VM, config: OpConfig): OpExecution {
    const op = new OpExecution(vm, config);
    vm.events.on("beforeTx", (tx: TypedTransaction, resolve?: (r?: unknown) => void) => {
      resolve?.(op.beforeTx(tx));
    });
    vm.events.on(
      "afterTx",
      (
        event: { transaction: TypedTransaction; totalGasSpent: bigint },
        resolve?: (r?: unknown) => void,
      ) => {
        resolve?.(op.afterTx(event.transaction, event.totalGasSpent));
      },
    );
    return op;
  }

  beginBlock(timestamp: bigint, baseFee: bigint | undefined): void {
    this.rules = opRulesAt(this.config, timestamp);
    this.baseFee = baseFee ?? 0n;
    this.forgetFeeParams();
  }

  /** The L1Block predeploy may have been written (a deposit, a dev method): read it again. */
  forgetFeeParams(): void {
    this.feeParamsNow = undefined;
    this.feeEpoch++;
  }

  rulesNow(): OpRules {
    return this.rules;
  }

  l1FeeOf(tx: object): L1FeeInfo | undefined {
    return this.l1Fees.get(tx);
  }

  private async storage(s: Uint8Array): Promise<Uint8Array> {
    return this.vm.stateManager.getStorage(new Address(L1_BLOCK), s);
  }

  /** The L1 fee parameters of the block (op-geth NewL1CostFunc), read at their first use. */
  async feeParams(): Promise<FeeParams> {
    this.feeParamsNow ??= await this.readFeeParams();
    return this.feeParamsNow;
  }

  private async readFeeParams(): Promise<FeeParams> {
    const scalars = await this.storage(L1_FEE_SCALARS_SLOT);
    const word = new Uint8Array(32);
    word.set(scalars, 32 - scalars.length);
    const params: L1FeeParams = {
      l1BaseFee: bytesToBigInt(await this.storage(L1_BASE_FEE_SLOT)),
      l1BlobBaseFee: bytesToBigInt(await this.storage(L1_BLOB_BASE_FEE_SLOT)),
      baseFeeScalar: bytesToBigInt(word.subarray(16, 20)),
      blobBaseFeeScalar: bytesToBigInt(word.subarray(20, 24)),
    };
    const bedrock: BedrockFeeParams = {
      l1BaseFee: params.l1BaseFee,
      overhead: bytesToBigInt(await this.storage(OVERHEAD_SLOT)),
      scalar: bytesToBigInt(await this.storage(SCALAR_SLOT)),
    };
    // The first Ecotone block still uses the Bedrock function (its scalars are not set yet).
    const unset =
      params.l1BlobBaseFee === 0n && params.baseFeeScalar === 0n && params.blobBaseFeeScalar === 0n;
    const rules = unset ? { ...this.rules, ecotone: false, fjord: false } : this.rules;
    return { params, bedrock, rules };
  }

  /**
   * The L1 fee transaction `tx` (binary encoding `raw`) pays in the block now, computed once
   * while the parameters stay the same: the pool's check and the execution share it.
   */
  async l1FeeFor(tx: object, raw: Uint8Array): Promise<L1FeeInfo> {
    const { params, bedrock, rules } = await this.feeParams();
    const known = this.feeByTx.get(tx);
    if (known !== undefined && known.epoch === this.feeEpoch) return known.fee;
    const fee = l1FeeOf(raw, rules, params, bedrock);
    this.feeByTx.set(tx, { epoch: this.feeEpoch, fee });
    return fee;
  }

  private async beforeTx(tx: TypedTransaction): Promise<void> {
    if (!this.charging || isDepositTx(tx)) return;
    const fee = await this.l1FeeFor(tx, encodingOf(tx));
    this.l1Fees.set(tx, fee);
    if (fee.l1Fee === 0n) return;
    const sender = senderOf(tx);
    const account = (await this.vm.stateManager.getAccount(sender)) ?? new Account();
    if (account.balance < fee.l1Fee)
      throw new Error(
        `insufficient funds for gas * price + value: address ${sender.toString()} have ${account.balance} want ${fee.l1Fee} (L1 data fee)`,
      );
    account.balance -= fee.l1Fee;
    await this.vm.evm.journal.putAccount(sender, account);
  }

  private async afterTx(tx: TypedTransaction, gasUsed: bigint): Promise<void> {
    if (!this.charging || isDepositTx(tx)) return;
    await this.credit(BASE_FEE_VAULT, gasUsed * this.baseFee);
    await this.credit(L1_FEE_VAULT, this.l1Fees.get(tx)?.l1Fee ?? 0n);
  }

  private async credit(address: Uint8Array, amount: bigint): Promise<void> {
    const a = new Address(address);
    const account = (await this.vm.stateManager.getAccount(a)) ?? new Account();
    account.balance += amount;
    await this.vm.evm.journal.putAccount(a, account);
  }

  /** Runs a deposit in `block` after `blockGasUsed` gas of the block (its receipt's base). */
  async runDeposit(tx: DepositTx, block: Block, blockGasUsed: bigint): Promise<DepositResult> {
    const vm = this.vm;
    const journal = vm.evm.journal;
    const from = tx.from;
    await journal.cleanup();
    const minted = (await vm.stateManager.getAccount(from)) ?? new Account();
    minted.balance += tx.mint;
    await journal.putAccount(from, minted);
    const depositNonce = minted.nonce;
    await journal.checkpoint();
    try {
      const run = await this.executeDeposit(tx, block, minted);
      await journal.commit();
      const gasUsed = this.rules.regolith ? run.gasUsed : tx.gasLimit;
      return this.result(run.exec, gasUsed, blockGasUsed, depositNonce, undefined);
    } catch (e) {
      await journal.revert();
      // A failed deposit: the mint stays, the nonce moves on, all its gas is used.
      const account = (await vm.stateManager.getAccount(from)) ?? new Account();
      account.nonce += 1n;
      await journal.putAccount(from, account);
      const exec = { executionGasUsed: tx.gasLimit, returnValue: new Uint8Array(0) };
      return this.result(exec, tx.gasLimit, blockGasUsed, depositNonce, (e as Error).message);
    } finally {
      journal.cleanJournal();
      vm.stateManager.originalStorageCache.clear();
      // The L1-info deposit writes the fee parameters.
      this.forgetFeeParams();
    }
  }

  private result(
    exec: DepositResult["execResult"],
    gasUsed: bigint,
    blockGasUsed: bigint,
    depositNonce: bigint,
    failure: string | undefined,
  ): DepositResult {
    const logs = failure === undefined ? (exec.logs ?? []) : [];
    const bloom = new Bloom(undefined, this.vm.common);
    for (const [address, topics] of logs) {
      bloom.add(address);
      for (const t of topics) bloom.add(t);
    }
    const status = failure === undefined && exec.exceptionError === undefined ? 1 : 0;
    return {
      totalGasSpent: gasUsed,
      blockGasSpent: gasUsed,
      amountSpent: 0n,
      minerValue: 0n,
      gasRefund: 0n,
      bloom,
      receipt: {
        status,
        cumulativeBlockGasUsed: blockGasUsed + gasUsed,
        bitvector: bloom.bitvector,
        logs,
      },
      execResult: { ...exec, logs },
      depositNonce,
      failure,
    };
  }

  /** The deposit's message call (throws for what makes op-geth's innerTransitionDb fail). */
  private async executeDeposit(
    tx: DepositTx,
    block: Block,
    sender: Account,
  ): Promise<{ exec: DepositResult["execResult"]; gasUsed: bigint }> {
    const vm = this.vm;
    const common = vm.common;
    const journal = vm.evm.journal;
    const intrinsic = tx.getIntrinsicGas();
    let floor = 0n;
    if (common.isActivatedEIP(7623)) {
      let tokens = 0n;
      for (const b of tx.data) tokens += b === 0 ? 1n : 4n;
      floor = tx.common.param("txGas") + tx.common.param("totalCostFloorPerToken") * tokens;
    }
    if (tx.gasLimit < intrinsic)
      throw new Error(`intrinsic gas too low: have ${tx.gasLimit}, want ${intrinsic}`);
    if (tx.gasLimit < floor)
      throw new Error(
        `insufficient gas for floor data gas cost: have ${tx.gasLimit}, want ${floor}`,
      );
    if (tx.value > 0n && sender.balance < tx.value)
      throw new Error(`insufficient funds for transfer: address ${tx.from.toString()}`);
    if (
      tx.to === undefined &&
      common.isActivatedEIP(3860) &&
      tx.data.length > Number(tx.common.param("maxInitCodeSize"))
    )
      throw new Error(`max initcode size exceeded: code size ${tx.data.length}`);
    if (common.isActivatedEIP(2929)) {
      for (const [address] of vm.evm.precompiles.entries()) journal.addAlwaysWarmAddress(address);
      journal.addAlwaysWarmAddress(bytesToUnprefixedHex(tx.from.bytes));
      if (tx.to !== undefined) journal.addAlwaysWarmAddress(bytesToUnprefixedHex(tx.to.bytes));
      if (common.isActivatedEIP(3651))
        journal.addAlwaysWarmAddress(bytesToUnprefixedHex(block.header.coinbase.bytes));
    }
    sender.nonce += 1n;
    await journal.putAccount(tx.from, sender);
    const result = await vm.evm.runCall({
      block,
      gasPrice: 0n,
      caller: tx.from,
      origin: tx.from,
      gasLimit: tx.gasLimit - intrinsic,
      ...(tx.to === undefined ? {} : { to: tx.to }),
      value: tx.value,
      data: tx.data,
      skipNonceIncrement: true,
    });
    const exec = result.execResult;
    let gasUsed = exec.executionGasUsed + intrinsic;
    const refund = exec.gasRefund ?? 0n;
    const maxRefund = gasUsed / common.param("maxRefundQuotient");
    gasUsed -= refund < maxRefund ? refund : maxRefund;
    if (gasUsed < floor) gasUsed = floor;
    // EIP-6780: only contracts created in this transaction are removed.
    for (const [addressHex] of exec.selfdestruct ?? []) {
      if (common.isActivatedEIP(6780) && !exec.createdAddresses?.has(addressHex)) continue;
      await journal.deleteAccount(new Address(hexToBytes(addressHex as `0x${string}`)));
    }
    await journal.cleanup();
    return {
      exec: {
        executionGasUsed: exec.executionGasUsed,
        returnValue: exec.returnValue,
        ...(exec.exceptionError === undefined ? {} : { exceptionError: exec.exceptionError }),
        logs: (exec.logs ?? []) as DepositResult["execResult"]["logs"] & object,
      },
      gasUsed,
    };
  }
}

/** For log lines and errors. */
export function describeDeposit(tx: DepositTx): string {
  return `deposit ${bytesToHex(tx.hash())} from ${tx.from.toString()}`;
}
