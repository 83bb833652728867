// anvil as the canonical chain of a followed network, mined by hand, with a flashblocks stream
// written in the test in front of it: the test plays the sequencer. For each block it announces
// a `base` (anvil's head as parent, the timestamp and base fee anvil is then told to use, anvil's
// coinbase and gas limit), publishes flashblocks of real signed transactions (sending them to
// anvil's pool, or not: a flashblock the chain will leave out), and mines the block.
//
// anvil draws each block's prevRandao at random when it mines (no RPC sets it ahead), so `base`
// carries zero there: the follower's pending block differs from anvil's only in PREVRANDAO.
import { keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { type Anvil, startAnvilUpstream, word } from "./anvilUpstream.ts";
import { asm, deployCode } from "./evmAsm.ts";
import {
  type FlashblockSource,
  type SourceOptions,
  startFlashblockSource,
} from "./flashblockSource.ts";

/** keccak256("Transfer(address,address,uint256)") */
const TRANSFER_TOPIC = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/**
 * An ERC-20-like token: calldata (to ‖ amount) moves amount from the caller's balance (slot =
 * the caller's address) to `to`'s, reverting when the balance is short, and logs Transfer.
 */
export const TOKEN_RUNTIME = asm([
  "CALLDATASIZE",
  "ISZERO",
  "@end",
  "JUMPI",
  "CALLER",
  "SLOAD",
  "0x20",
  "CALLDATALOAD",
  // [amount, from]: revert if from < amount
  "DUP1",
  "DUP3",
  "LT",
  "@fail",
  "JUMPI",
  "DUP1",
  "DUP3",
  "SUB",
  "CALLER",
  "SSTORE",
  "0x00",
  "CALLDATALOAD",
  // [to, amount, from]
  "DUP1",
  "SLOAD",
  "DUP3",
  "ADD",
  "DUP2",
  "SSTORE",
  "DUP2",
  "0x00",
  "MSTORE",
  "CALLER",
  TRANSFER_TOPIC,
  "0x20",
  "0x00",
  "LOG3",
  "STOP",
  "fail:",
  "JUMPDEST",
  "0x00",
  "0x00",
  "REVERT",
  "end:",
  "JUMPDEST",
  "STOP",
]);

/** anvil's fee recipient here: Base's fee vault, so COINBASE is not zero. */
export const COINBASE = "0x4200000000000000000000000000000000000011";
const ZERO32 = `0x${"00".repeat(32)}`;
/** Seconds between blocks. */
const BLOCK_TIME = 2n;

const SENDERS = devAccounts(10).map((a) => privateKeyToAccount(a.privateKey as `0x${string}`));

export type SignedTx = { readonly raw: `0x${string}`; readonly hash: string };

/** The block the test is sequencing: what index 0's `base` said. */
export type BlockPlan = {
  readonly number: number;
  readonly parentHash: string;
  readonly timestamp: bigint;
  readonly baseFee: bigint;
  readonly gasLimit: bigint;
  readonly payloadId: string;
};

type Header = {
  number: string;
  hash: string;
  timestamp: string;
  baseFeePerGas: string;
  gasLimit: string;
  gasUsed: string;
};

/** EIP-1559's next base fee (elasticity 2, denominator 8), as anvil computes it. */
function nextBaseFee(parent: Header): bigint {
  const fee = BigInt(parent.baseFeePerGas);
  const used = BigInt(parent.gasUsed);
  const target = BigInt(parent.gasLimit) / 2n;
  if (used === target) return fee;
  if (used > target) {
    const delta = (fee * (used - target)) / target / 8n;
    return fee + (delta > 1n ? delta : 1n);
  }
  return fee - (fee * (target - used)) / target / 8n;
}

export type FlashblockOptions = {
  /** Cumulative gas the flashblock claims (default: anvil's pending block's, 0 = unchecked). */
  readonly gasUsed?: bigint;
  readonly payloadId?: string;
};

export class AnvilSequencer {
  /** Each sender's next nonce, once read from anvil. */
  readonly #nonces: (number | undefined)[] = SENDERS.map(() => undefined);
  #payloads = 0;
  token = "";

  private constructor(
    readonly anvil: Anvil,
    readonly source: FlashblockSource,
  ) {}

  /** anvil with an empty pool mined by hand (fifo: a block's order is the order sent). */
  static async start(
    opts: { readonly anvilArgs?: readonly string[]; readonly source?: SourceOptions } = {},
  ): Promise<AnvilSequencer> {
    const anvil = await startAnvilUpstream([
      "--no-mining",
      "--order",
      "fifo",
      ...(opts.anvilArgs ?? []),
    ]);
    const source = await startFlashblockSource(opts.source);
    await anvil.rpc("anvil_setCoinbase", [COINBASE]);
    return new AnvilSequencer(anvil, source);
  }

  static address(sender: number): string {
    return SENDERS[sender]!.address.toLowerCase();
  }

  /** Deploys the token, credits each sender with `balance` and mines (before following starts). */
  async deployToken(balance: bigint): Promise<string> {
    const deploy = await this.sign(0, { data: deployCode(TOKEN_RUNTIME), gas: 200_000n });
    await this.toPool([deploy]);
    await this.anvil.rpc("evm_mine");
    const receipt = await this.anvil.rpc<{ contractAddress: string; status: string }>(
      "eth_getTransactionReceipt",
      [deploy.hash],
    );
    if (receipt.status !== "0x1") throw new Error("the token's deployment failed");
    this.token = receipt.contractAddress.toLowerCase();
    for (const s of SENDERS)
      await this.anvil.rpc("anvil_setStorageAt", [this.token, slotOf(s.address), word(balance)]);
    // The balances belong to a block of their own, so state at the head is what anvil stores.
    await this.anvil.rpc("evm_mine");
    return this.token;
  }

  /** A token transfer signed by dev account `from` with its next nonce. */
  transfer(from: number, to: string, amount: bigint): Promise<SignedTx> {
    return this.sign(from, { to: this.token, data: `${word(BigInt(to))}${word(amount).slice(2)}` });
  }

  /** Forgets nonces used by transactions the chain never took (reads anvil's pool view). */
  async resyncNonce(from: number): Promise<void> {
    this.#nonces[from] = Number(
      await this.anvil.rpc<string>("eth_getTransactionCount", [SENDERS[from]!.address, "pending"]),
    );
  }

  async sign(from: number, tx: { to?: string; data: string; gas?: bigint }): Promise<SignedTx> {
    const account = SENDERS[from]!;
    if (this.#nonces[from] === undefined) await this.resyncNonce(from);
    const nonce = this.#nonces[from]!;
    this.#nonces[from] = nonce + 1;
    const raw = await account.signTransaction({
      chainId: 31337,
      type: "eip1559",
      nonce,
      gas: tx.gas ?? 100_000n,
      maxFeePerGas: 100n * 10n ** 9n,
      maxPriorityFeePerGas: 10n ** 9n,
      data: tx.data as `0x${string}`,
      ...(tx.to === undefined ? {} : { to: tx.to as `0x${string}` }),
    });
    return { raw, hash: keccak256(raw) };
  }

  async toPool(txs: readonly SignedTx[]): Promise<void> {
    for (const t of txs) await this.anvil.rpc("eth_sendRawTransaction", [t.raw]);
  }

  async head(): Promise<Header> {
    return this.anvil.rpc<Header>("eth_getBlockByNumber", ["latest", false]);
  }

  /** The next block on anvil's head: its context as index 0 will announce it. */
  async plan(): Promise<BlockPlan> {
    const parent = await this.head();
    this.#payloads++;
    return {
      number: Number(BigInt(parent.number)) + 1,
      parentHash: parent.hash,
      timestamp: BigInt(parent.timestamp) + BLOCK_TIME,
      baseFee: nextBaseFee(parent),
      gasLimit: BigInt(parent.gasLimit),
      payloadId: `0x${this.#payloads.toString(16).padStart(16, "0")}`,
    };
  }

  /** Cumulative gas of what anvil's pool holds for the next block (its pending block). */
  async poolGas(): Promise<bigint> {
    const p = await this.anvil.rpc<Header>("eth_getBlockByNumber", ["pending", false]);
    return BigInt(p.gasUsed);
  }

  /** One flashblock of `plan` in Base's JSON shape (index 0 carries `base`). */
  message(
    plan: BlockPlan,
    index: number,
    txs: readonly SignedTx[],
    o: FlashblockOptions = {},
  ): string {
    const hex = (n: bigint | number) => `0x${n.toString(16)}`;
    return JSON.stringify({
      payload_id: o.payloadId ?? plan.payloadId,
      index,
      ...(index === 0
        ? {
            base: {
              parent_beacon_block_root: ZERO32,
              parent_hash: plan.parentHash,
              fee_recipient: COINBASE,
              prev_randao: ZERO32,
              block_number: hex(plan.number),
              gas_limit: hex(plan.gasLimit),
              timestamp: hex(plan.timestamp),
              extra_data: "0x",
              base_fee_per_gas: hex(plan.baseFee),
            },
          }
        : {}),
      diff: {
        state_root: ZERO32,
        receipts_root: ZERO32,
        logs_bloom: `0x${"00".repeat(256)}`,
        gas_used: hex(o.gasUsed ?? 0n),
        block_hash: ZERO32,
        transactions: txs.map((t) => t.raw),
        withdrawals: [],
        withdrawals_root: ZERO32,
      },
      metadata: { block_number: plan.number },
    });
  }

  /**
   * The sequencer's flashblock: `txs` go to anvil's pool, then the flashblock, claiming the
   * pool's cumulative gas, is sent to `send`.
   */
  async flashblock(
    plan: BlockPlan,
    index: number,
    txs: readonly SignedTx[],
    send: (message: string) => void | Promise<void>,
  ): Promise<string> {
    await this.toPool(txs);
    const m = this.message(plan, index, txs, { gasUsed: await this.poolGas() });
    await send(m);
    return m;
  }

  /** Mines the pool as block `plan` with the timestamp and base fee its `base` announced. */
  async mine(plan: BlockPlan): Promise<Header> {
    await this.anvil.rpc("evm_setNextBlockTimestamp", [Number(plan.timestamp)]);
    await this.anvil.rpc("anvil_setNextBlockBaseFeePerGas", [`0x${plan.baseFee.toString(16)}`]);
    await this.anvil.rpc("evm_mine");
    const block = await this.head();
    if (
      Number(BigInt(block.number)) !== plan.number ||
      BigInt(block.timestamp) !== plan.timestamp ||
      BigInt(block.baseFeePerGas) !== plan.baseFee
    )
      throw new Error(`anvil mined ${JSON.stringify(block)}, not the planned block`);
    return block;
  }

  async close(): Promise<void> {
    await this.source.close();
    this.anvil.stop();
  }
}

/** A holder's balance slot in the token. */
export function slotOf(address: string): string {
  return word(BigInt(address));
}
