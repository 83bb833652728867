// The chain both nodes are benchmarked on, built from the same signed transactions: a storage
// contract, blocks of 10 and of 200 transactions (slot writes with logs, value transfers),
// blocks sealed with evm_mine on both (anvil --no-mining; flashnode with a long block time).

import type { Common } from "@ethereumjs/common";
import { createTx } from "@ethereumjs/tx";
import type { DevAccount } from "../../src/chain/devGenesis.ts";
import { bytesToHex, hexToBytes } from "../../src/util/hex.ts";

/** sstore(calldata[0:32], calldata[32:64]) and log1(value, topic = slot). */
export const STORE_RUNTIME = "6020356000355560203560005260003560206000a100";
export const STORE_INITCODE = `0x6016600c60003960166000f3${STORE_RUNTIME}`;

export type SeedPlan = {
  readonly smallBlocks: number;
  readonly bigBlocks: number;
  readonly tailBlocks: number;
};
export const DEFAULT_PLAN: SeedPlan = { smallBlocks: 100, bigBlocks: 20, tailBlocks: 90 };

export type SeededChain = {
  readonly contract: string;
  /** Blocks (as raw signed txs) to send, one evm_mine after each. */
  readonly blocks: readonly (readonly string[])[];
  readonly slots: number;
};

export function contractAddress(): string {
  // CREATE address of account 0 at nonce 0 (the first transaction).
  return "0x5fbdb2315678afecb367f032d93f642f64180aa3";
}

export function buildSeed(
  common: Common,
  accounts: readonly DevAccount[],
  plan: SeedPlan = DEFAULT_PLAN,
): SeededChain {
  const nonces = accounts.map(() => 0);
  let slot = 0;
  const sign = (from: number, tx: Record<string, unknown>) => {
    const signed = createTx(
      {
        type: 2,
        chainId: 31337n,
        nonce: BigInt(nonces[from]!++),
        maxFeePerGas: 100_000_000_000n,
        maxPriorityFeePerGas: 1_000_000_000n,
        ...tx,
      },
      { common },
    ).sign(hexToBytes(accounts[from]!.privateKey));
    return bytesToHex(signed.serialize());
  };
  const contract = contractAddress();
  const write = (from: number) => {
    slot++;
    const data = `0x${slot.toString(16).padStart(64, "0")}${(slot * 7 + 1).toString(16).padStart(64, "0")}`;
    return sign(from, { to: contract, data, gasLimit: 100_000n });
  };
  const transfer = (from: number) =>
    sign(from, {
      to: accounts[(from + 1) % accounts.length]!.address,
      value: 1000n,
      gasLimit: 21_000n,
    });
  const blocks: string[][] = [[sign(0, { data: STORE_INITCODE, gasLimit: 200_000n })]];
  const block = (size: number) =>
    Array.from({ length: size }, (_, i) =>
      i % 5 === 4 ? transfer(i % accounts.length) : write(i % accounts.length),
    );
  for (let i = 0; i < plan.smallBlocks; i++) blocks.push(block(10));
  for (let i = 0; i < plan.bigBlocks; i++) blocks.push(block(200));
  // Later writes overwrite earlier slots, so history differs from latest.
  slot = 0;
  for (let i = 0; i < plan.tailBlocks; i++) blocks.push(block(10));
  return { contract, blocks, slots: plan.smallBlocks * 8 + plan.bigBlocks * 160 };
}
