// Signed transactions of the test mnemonic's accounts, each sender's nonces counted here, so a
// workload is signed once and the same bytes are sent to several nodes (flashnode before and
// after a change, anvil). Signing is deterministic (RFC 6979): the same signer state signs the
// same bytes on every run. And the few JSON-RPC steps every user of these workloads needs:
// sending a list, mining it into one block, checking its receipts.
import type { Hex } from "viem";
import { keccak256 } from "viem";
import { type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../src/chain/devGenesis.ts";
import { rpc } from "./followPhase.ts";
import { postJson } from "./http.ts";

export type TxFields = {
  readonly to?: Hex;
  readonly data?: Hex;
  readonly value?: bigint;
  readonly gas: bigint;
};

export class TxSigner {
  readonly accounts: readonly PrivateKeyAccount[];
  readonly nonces: number[];

  /**
   * The first `count` accounts of the test mnemonic (anvil's and `flashnode dev`'s prefunded
   * ones). `maxFeePerGas` is far above the base fee either node reaches in a bench.
   */
  constructor(
    readonly chainId: number,
    count: number,
    readonly maxFeePerGas = 100_000_000_000n,
  ) {
    this.accounts = devAccounts(count).map((a) => privateKeyToAccount(a.privateKey as Hex));
    this.nonces = new Array<number>(count).fill(0);
  }

  address(i: number): Hex {
    const a = this.accounts[i];
    if (a === undefined) throw new Error(`account ${i}: the signer holds ${this.accounts.length}`);
    return a.address;
  }

  /** An EIP-1559 transaction from account `from` at its next nonce (priority fee 1 wei). */
  sign(from: number, tx: TxFields): Promise<Hex> {
    const account = this.accounts[from];
    if (account === undefined) throw new Error(`account ${from}: not in the signer`);
    return account.signTransaction({
      chainId: this.chainId,
      type: "eip1559",
      nonce: this.nonces[from]!++,
      gas: tx.gas,
      maxFeePerGas: this.maxFeePerGas,
      maxPriorityFeePerGas: 1n,
      ...(tx.to === undefined ? {} : { to: tx.to }),
      ...(tx.data === undefined ? {} : { data: tx.data }),
      ...(tx.value === undefined ? {} : { value: tx.value }),
    });
  }
}

export const txHash = (raw: Hex): Hex => keccak256(raw);

/**
 * Sends `raws` in JSON-RPC batches of `batch`, each batch answered before the next leaves (so
 * the node receives them in order); throws on the first refusal.
 */
export async function sendRaw(url: string, raws: readonly Hex[], batch = 100): Promise<void> {
  for (let i = 0; i < raws.length; i += batch) {
    const body = raws
      .slice(i, i + batch)
      .map((raw, id) => ({ jsonrpc: "2.0", id, method: "eth_sendRawTransaction", params: [raw] }));
    const answers = JSON.parse(await postJson(url, JSON.stringify(body))) as {
      error?: { message: string };
    }[];
    const refused = answers.find((a) => a.error !== undefined);
    if (refused !== undefined)
      throw new Error(`eth_sendRawTransaction refused: ${refused.error!.message}`);
  }
}

export type Receipt = {
  readonly transactionHash: Hex;
  readonly status: Hex;
  readonly gasUsed: Hex;
  readonly type: Hex;
  readonly logs: readonly { readonly address: Hex; readonly topics: readonly Hex[]; data: Hex }[];
};

/** The receipts of block `block` (a number or tag). */
export function blockReceipts(url: string, block: number | string): Promise<Receipt[]> {
  const tag = typeof block === "number" ? `0x${block.toString(16)}` : block;
  return rpc<Receipt[]>(url, "eth_getBlockReceipts", [tag]);
}

/** The receipts of `hashes` (null: none yet), in one batch. */
export async function receiptsOf(url: string, hashes: readonly Hex[]): Promise<(Receipt | null)[]> {
  if (hashes.length === 0) return [];
  const body = hashes.map((h, id) => ({
    jsonrpc: "2.0",
    id,
    method: "eth_getTransactionReceipt",
    params: [h],
  }));
  const answers = JSON.parse(await postJson(url, JSON.stringify(body))) as {
    id: number;
    result?: Receipt | null;
    error?: { message: string };
  }[];
  const out = new Array<Receipt | null>(hashes.length).fill(null);
  for (const a of answers) {
    if (a.error !== undefined) throw new Error(`eth_getTransactionReceipt: ${a.error.message}`);
    out[a.id] = a.result ?? null;
  }
  return out;
}

/**
 * Sends `raws`, mines one block (`evm_mine`: flashnode dev and anvil alike, whatever their block
 * time) and checks that each of them has its receipt, succeeded unless listed in `mayFail`; the
 * receipts, in the order of `raws`.
 */
export async function mineBlock(
  url: string,
  raws: readonly Hex[],
  mayFail: ReadonlySet<Hex> = new Set(),
): Promise<Receipt[]> {
  await sendRaw(url, raws);
  await rpc(url, "evm_mine");
  const hashes = raws.map(txHash);
  const receipts = await receiptsOf(url, hashes);
  return receipts.map((r, i) => {
    if (r === null) throw new Error(`${hashes[i]}: no receipt after evm_mine`);
    if (r.status !== "0x1" && !mayFail.has(hashes[i]!)) throw new Error(`${hashes[i]} failed`);
    return r;
  });
}
