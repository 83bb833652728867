// The transactions of the execution workloads, signed over a Uniswap deployment
// (uniswapSetup.ts), the senders taking turns:
//   eth    ETH transfers to the next sender;
//   erc20  ERC-20 transfers of the three tokens in turn;
//   v2     Uniswap V2 router swaps A→B and back, in turn;
//   v3     Uniswap V3 exact-input swaps A→B and back, each moving the price past initialized
//          ticks (the pool's narrow positions are 120 ticks wide; a swap moves it ~240);
//   chain  long swap chains through the same pools, in turn: V3's router along six hops
//          A→B→C→A→B→C→A (or back), each pool twice; V2's router around A→B→C→A (or back; its
//          router prices a whole route before the first hop, so a pair is used once a route);
//   mixed  the burst of issue 31: 40% ERC-20 transfers, 30% V2 swaps, 30% V3 swaps.
// And a few that fail on purpose (for the result guard): a swap past its deadline, one below
// its minimum output, a transfer above the balance, a swap out of gas.
import { encodeFunctionData, encodePacked, type Hex } from "viem";
import type { TxSigner } from "./txSigner.ts";
import { uniswapArtifacts } from "./uniswapArtifacts.ts";
import { FAR_DEADLINE, type UniswapDeployment, V3_FEE } from "./uniswapSetup.ts";

export const WORKLOAD_KINDS = ["eth", "erc20", "v2", "v3", "chain", "mixed"] as const;
export type WorkloadKind = (typeof WORKLOAD_KINDS)[number];

/** Gas limits: above what each uses (the block gas limit of a bench chain leaves room). */
export const GAS_LIMITS: Readonly<Record<Exclude<WorkloadKind, "mixed">, bigint>> = {
  eth: 21_000n,
  erc20: 100_000n,
  v2: 250_000n,
  v3: 500_000n,
  chain: 2_500_000n,
};

const V2_AMOUNT = 10n ** 19n;
/** Moves a pool's price ~240 ticks: past about two of its narrow positions' bounds. */
export const V3_AMOUNT = 3n * 10n ** 19n;
const V3_CHAIN_HOPS = 6;

/** The mixed burst's kinds, in the order they repeat (4 of 10 transfers, 3 V2, 3 V3). */
const MIXED: readonly Exclude<WorkloadKind, "mixed">[] = [
  "erc20",
  "v2",
  "v3",
  "erc20",
  "v2",
  "v3",
  "erc20",
  "v2",
  "v3",
  "erc20",
];

export type FailingKind = "deadline" | "slippage" | "balance" | "outOfGas";

/** Signs the workloads of one Uniswap deployment; the signer's nonces advance. */
export class WorkloadSigner {
  /** Transactions signed so far, by kind: each kind's turn (direction, token, sender) goes on. */
  private readonly count = new Map<string, number>();

  constructor(
    readonly signer: TxSigner,
    readonly uniswap: UniswapDeployment,
  ) {}

  /** `n` signed transactions of `kind`, the senders taking turns. */
  async makeWorkload(kind: WorkloadKind, n: number): Promise<Hex[]> {
    const out: Hex[] = [];
    for (let i = 0; i < n; i++)
      out.push(await this.one(kind === "mixed" ? MIXED[this.next("mixed") % MIXED.length]! : kind));
    return out;
  }

  /** One transaction that fails as said (status 0 in its receipt). */
  failing(kind: FailingKind): Promise<Hex> {
    const u = this.uniswap;
    const from = this.sender(this.next("failing"));
    const [a, b] = u.tokens;
    switch (kind) {
      case "deadline":
        return this.signer.sign(from, {
          to: u.swapRouter,
          data: this.v3Single(a, b, from, V3_AMOUNT, 1n),
          gas: GAS_LIMITS.v3,
        });
      case "slippage":
        return this.signer.sign(from, {
          to: u.v2Router,
          data: this.v2Swap([a, b], from, V2_AMOUNT, V2_AMOUNT * 10n),
          gas: GAS_LIMITS.v2,
        });
      case "balance":
        return this.signer.sign(from, {
          to: a,
          data: this.erc20Transfer(this.signer.address(u.deployer), 10n ** 40n),
          gas: GAS_LIMITS.erc20,
        });
      case "outOfGas":
        return this.signer.sign(from, {
          to: u.swapRouter,
          data: this.v3Single(a, b, from, V3_AMOUNT, FAR_DEADLINE),
          gas: 60_000n,
        });
    }
  }

  private next(key: string): number {
    const i = this.count.get(key) ?? 0;
    this.count.set(key, i + 1);
    return i;
  }

  private sender(i: number): number {
    const s = this.uniswap.senders;
    return s[i % s.length]!;
  }

  private one(kind: Exclude<WorkloadKind, "mixed">): Promise<Hex> {
    const u = this.uniswap;
    const i = this.next(kind);
    const from = this.sender(i);
    const to = this.signer.address(this.sender(i + 1));
    const [a, b, c] = u.tokens;
    const back = i % 2 === 1;
    switch (kind) {
      case "eth":
        return this.signer.sign(from, { to, value: 10n ** 15n, gas: GAS_LIMITS.eth });
      case "erc20":
        return this.signer.sign(from, {
          to: u.tokens[i % 3]!,
          data: this.erc20Transfer(to, 10n ** 18n),
          gas: GAS_LIMITS.erc20,
        });
      case "v2":
        return this.signer.sign(from, {
          to: u.v2Router,
          data: this.v2Swap(back ? [b, a] : [a, b], from, V2_AMOUNT, 0n),
          gas: GAS_LIMITS.v2,
        });
      case "v3":
        return this.signer.sign(from, {
          to: u.swapRouter,
          data: back
            ? this.v3Single(b, a, from, V3_AMOUNT, FAR_DEADLINE)
            : this.v3Single(a, b, from, V3_AMOUNT, FAR_DEADLINE),
          gas: GAS_LIMITS.v3,
        });
      case "chain": {
        // Forward A→B→C→A…, or back A→C→B→A…; V2 and V3 every other pair of turns.
        const cycle = back ? [a, c, b] : [a, b, c];
        const route = (hops: number) => Array.from({ length: hops + 1 }, (_, k) => cycle[k % 3]!);
        if (Math.floor(i / 2) % 2 === 0)
          return this.signer.sign(from, {
            to: u.v2Router,
            data: this.v2Swap(route(3), from, V2_AMOUNT, 0n),
            gas: GAS_LIMITS.chain,
          });
        const path = route(V3_CHAIN_HOPS);
        const types = path.flatMap((_, k) => (k === 0 ? ["address"] : ["uint24", "address"]));
        const values = path.flatMap((t, k) => (k === 0 ? [t] : [V3_FEE, t]));
        return this.signer.sign(from, {
          to: u.swapRouter,
          data: encodeFunctionData({
            abi: uniswapArtifacts().swapRouter.abi,
            functionName: "exactInput",
            args: [
              {
                path: encodePacked(types, values),
                recipient: this.signer.address(from),
                deadline: FAR_DEADLINE,
                amountIn: V3_AMOUNT,
                amountOutMinimum: 0n,
              },
            ],
          }),
          gas: GAS_LIMITS.chain,
        });
      }
    }
  }

  private erc20Transfer(to: Hex, amount: bigint): Hex {
    return encodeFunctionData({
      abi: uniswapArtifacts().erc20.abi,
      functionName: "transfer",
      args: [to, amount],
    });
  }

  private v2Swap(path: readonly Hex[], from: number, amountIn: bigint, minOut: bigint): Hex {
    return encodeFunctionData({
      abi: uniswapArtifacts().v2Router.abi,
      functionName: "swapExactTokensForTokens",
      args: [amountIn, minOut, path, this.signer.address(from), FAR_DEADLINE],
    });
  }

  private v3Single(
    tokenIn: Hex,
    tokenOut: Hex,
    from: number,
    amountIn: bigint,
    deadline: bigint,
  ): Hex {
    return encodeFunctionData({
      abi: uniswapArtifacts().swapRouter.abi,
      functionName: "exactInputSingle",
      args: [
        {
          tokenIn,
          tokenOut,
          fee: V3_FEE,
          recipient: this.signer.address(from),
          deadline,
          amountIn,
          amountOutMinimum: 0n,
          sqrtPriceLimitX96: 0n,
        },
      ],
    });
  }

  /** Calldata of the quoter's quote of a V3 swap A→B of V3_AMOUNT (an `eth_call`). */
  quoteCall(): { to: Hex; data: Hex } {
    const [a, b] = this.uniswap.tokens;
    return {
      to: this.uniswap.quoter,
      data: encodeFunctionData({
        abi: uniswapArtifacts().quoter.abi,
        functionName: "quoteExactInputSingle",
        args: [
          { tokenIn: a, tokenOut: b, amountIn: V3_AMOUNT, fee: V3_FEE, sqrtPriceLimitX96: 0n },
        ],
      }),
    };
  }
}
