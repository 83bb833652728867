// The load of `npm run bench:follow`: an ERC-20 pair of tokens and a constant-product pair
// (bench/contracts/FollowLoad.sol, compiled here with the solc-js dev dependency), deployed on a
// dev chain and traded by the test mnemonic's accounts. Transactions are signed here with viem
// accounts, each sender's nonces counted locally, so a load can be signed before it is sent.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import {
  type Abi,
  encodeDeployData,
  encodeFunctionData,
  getContractAddress,
  type Hex,
  maxUint256,
} from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../src/chain/devGenesis.ts";

type Solc = { compile(input: string): string };
type Artifact = { abi: Abi; bytecode: Hex };
export type LoadContracts = { token: Artifact; pair: Artifact };

/** Token and Pair of FollowLoad.sol, optimized as the repository's own predeploys are. */
export function compileLoadContracts(): LoadContracts {
  const solc = createRequire(import.meta.url)("solc") as Solc;
  const source = readFileSync(join(import.meta.dirname, "../contracts/FollowLoad.sol"), "utf8");
  const output = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: "Solidity",
        sources: { "FollowLoad.sol": { content: source } },
        settings: {
          optimizer: { enabled: true, runs: 200 },
          evmVersion: "london",
          outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
        },
      }),
    ),
  ) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const artifact = (name: string): Artifact => {
    const c = output.contracts["FollowLoad.sol"]?.[name];
    if (c === undefined) throw new Error(`solc produced no ${name}`);
    return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  };
  return { token: artifact("Token"), pair: artifact("Pair") };
}

/** Gas limits of the load's transactions (set from measured gas before the load is signed). */
export type GasLimits = { transfer: bigint; swap: bigint; swapRounds: bigint };

export class LoadSigner {
  readonly accounts: PrivateKeyAccount[];
  readonly nonces: number[];
  tokenA: Hex = "0x";
  tokenB: Hex = "0x";
  pair: Hex = "0x";

  constructor(
    count: number,
    private readonly contracts: LoadContracts,
    private readonly chainId: number,
  ) {
    this.accounts = devAccounts(count).map((a) => privateKeyToAccount(a.privateKey as Hex));
    this.nonces = new Array<number>(count).fill(0);
  }

  /** A signed EIP-1559 transaction from account `from` at its next nonce. */
  sign(from: number, tx: { to?: Hex; data: Hex; gas: bigint }): Promise<Hex> {
    return this.accounts[from]!.signTransaction({
      chainId: this.chainId,
      type: "eip1559",
      nonce: this.nonces[from]!++,
      gas: tx.gas,
      // Far above the dev chain's base fee, even after blocks of full gas raise it.
      maxFeePerGas: 100_000_000_000n,
      maxPriorityFeePerGas: 1n,
      ...(tx.to === undefined ? {} : { to: tx.to }),
      data: tx.data,
    });
  }

  /**
   * Account 0 deploys both tokens and the pair, puts liquidity in, and gives every other sender
   * tokens; every sender approves the pair. Returns the signed transactions in sending order.
   */
  async setup(liquidity: bigint, perSender: bigint): Promise<Hex[]> {
    const { token, pair } = this.contracts;
    const deployer = this.accounts[0]!.address;
    const supply = liquidity * 2n + perSender * BigInt(this.accounts.length);
    const at = (nonce: number) => getContractAddress({ from: deployer, nonce: BigInt(nonce) });
    const n0 = this.nonces[0]!;
    this.tokenA = at(n0);
    this.tokenB = at(n0 + 1);
    this.pair = at(n0 + 2);
    const deployToken = encodeDeployData({ ...token, args: [supply] });
    const out: Hex[] = [
      await this.sign(0, { data: deployToken, gas: 1_500_000n }),
      await this.sign(0, { data: deployToken, gas: 1_500_000n }),
      await this.sign(0, {
        data: encodeDeployData({ ...pair, args: [this.tokenA, this.tokenB] }),
        gas: 2_000_000n,
      }),
    ];
    for (let i = 0; i < this.accounts.length; i++)
      for (const t of [this.tokenA, this.tokenB])
        out.push(await this.sign(i, { to: t, data: this.approveData(), gas: 80_000n }));
    out.push(
      await this.sign(0, {
        to: this.pair,
        data: encodeFunctionData({
          abi: pair.abi,
          functionName: "addLiquidity",
          args: [liquidity, liquidity],
        }),
        gas: 300_000n,
      }),
    );
    for (let i = 1; i < this.accounts.length; i++)
      for (const t of [this.tokenA, this.tokenB])
        out.push(
          await this.sign(0, {
            to: t,
            data: this.transferData(this.accounts[i]!.address, perSender),
            gas: 80_000n,
          }),
        );
    return out;
  }

  /**
   * One of each kind from `from`, in this order: a transfer of token A, of token B, a swap each
   * way (what the benches measure gas limits and warm state with).
   */
  async eachKind(from: number, transferGas: bigint, swapGas: bigint): Promise<Hex[]> {
    return [
      await this.transfer(from, 0, transferGas),
      await this.transfer(from, 1, transferGas),
      await this.swap(from, 0, swapGas),
      await this.swap(from, 1, swapGas),
    ];
  }

  /** An ERC-20 transfer of token A or B (by `which`) from `from` to the next sender. */
  transfer(from: number, which: number, gas: bigint): Promise<Hex> {
    const to = this.accounts[(from + 1) % this.accounts.length]!.address;
    return this.sign(from, {
      to: which % 2 === 0 ? this.tokenA : this.tokenB,
      data: this.transferData(to, 10n ** 15n),
      gas,
    });
  }

  /** One swap of 0.1 token, token0 → token1 for even `which`, back for odd. */
  swap(from: number, which: number, gas: bigint): Promise<Hex> {
    return this.sign(from, {
      to: this.pair,
      data: encodeFunctionData({
        abi: this.contracts.pair.abi,
        functionName: "swap",
        args: [which % 2 === 0, 10n ** 17n, 0n],
      }),
      gas,
    });
  }

  /** `rounds` swaps back and forth in one transaction (the heavier phase's larger swaps). */
  swapRounds(from: number, rounds: number, gas: bigint): Promise<Hex> {
    return this.sign(from, {
      to: this.pair,
      data: encodeFunctionData({
        abi: this.contracts.pair.abi,
        functionName: "swapRounds",
        args: [10n ** 17n, BigInt(rounds)],
      }),
      gas,
    });
  }

  private approveData(): Hex {
    return encodeFunctionData({
      abi: this.contracts.token.abi,
      functionName: "approve",
      args: [this.pair, maxUint256],
    });
  }

  private transferData(to: Hex, amount: bigint): Hex {
    return encodeFunctionData({
      abi: this.contracts.token.abi,
      functionName: "transfer",
      args: [to, amount],
    });
  }
}
