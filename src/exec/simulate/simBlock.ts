// Headers and bodies of simulated blocks: the fork facts geth's simulator asks of the chain
// config, headers built as the EVM library's (so they hash as geth's do), the transaction,
// receipt and withdrawal roots, and the block as the RPC layer renders it.
import { type BlockHeader, createBlockHeader } from "@ethereumjs/block";
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { bigIntToUnpaddedBytes } from "@ethereumjs/util";
import { type BlockView, headerView, type TransactionView } from "../../chain/blockView.ts";
import { type ChainSpec, commonAt } from "../../chain/genesis.ts";
import { listRoot } from "../../chain/listTrie.ts";
import type { WithdrawalOverride } from "../../services/simulate.ts";
import { hexToBytes } from "../../util/hex.ts";

const INITIAL_BASE_FEE = 1_000_000_000n;

type GenesisConfig = {
  terminalTotalDifficulty?: number | string | bigint;
  mergeNetsplitBlock?: number;
  shanghaiTime?: number;
  depositContractAddress?: string;
};

export type ChainRules = {
  /** geth's ChainConfig.IsPostMerge. */
  postMerge(number: bigint, timestamp: bigint): boolean;
  cancun(number: bigint, timestamp: bigint): boolean;
  /** EIP-6110's deposit contract (requests are parsed from its logs). */
  readonly depositContract: Uint8Array;
};

export function chainRules(spec: ChainSpec): ChainRules {
  const c = spec.genesisJson.config as unknown as GenesisConfig;
  const ttdZero =
    c.terminalTotalDifficulty !== undefined && BigInt(c.terminalTotalDifficulty) === 0n;
  return {
    postMerge: (number, time) =>
      ttdZero ||
      (c.mergeNetsplitBlock !== undefined && number >= BigInt(c.mergeNetsplitBlock)) ||
      (c.shanghaiTime !== undefined && time >= BigInt(c.shanghaiTime)),
    cancun: (number, time) => commonAt(spec, number, time).isActivatedEIP(4844),
    depositContract: hexToBytes(c.depositContractAddress ?? `0x${"00".repeat(20)}`),
  };
}

/** The base fee of a block after `parent` (geth's eip1559.CalcBaseFee). */
export function nextBaseFee(parent: BlockHeader): bigint {
  return parent.common.isActivatedEIP(1559) ? parent.calcNextBaseFee() : INITIAL_BASE_FEE;
}

type HeaderData = NonNullable<Parameters<typeof createBlockHeader>[0]>;

/**
 * A header of the library's (unfrozen: an overridden blob base fee is patched in). The library
 * insists the London block carry the initial base fee; a simulated one may not.
 */
export function makeHeader(data: HeaderData, common: Common): BlockHeader {
  const opts = { common, skipConsensusFormatValidation: true, freeze: false } as const;
  const london = common.hardforkBlock("london");
  if (london !== null && london === data.number && data.baseFeePerGas !== undefined) {
    const h = createBlockHeader({ ...data, baseFeePerGas: INITIAL_BASE_FEE }, opts);
    Object.assign(h, { baseFeePerGas: data.baseFeePerGas });
    return h;
  }
  return createBlockHeader(data, opts);
}

export type BlockParts = {
  /** The block's header as its calls saw it, completed here. */
  readonly header: BlockHeader;
  readonly fields: Pick<BlockHeader, "stateRoot" | "gasUsed"> &
    Partial<Pick<BlockHeader, "blobGasUsed" | "requestsHash">>;
  readonly common: Common;
  readonly transactions: readonly Uint8Array[];
  readonly views: readonly TransactionView[];
  readonly receipts: readonly Uint8Array[];
  readonly blooms: readonly Uint8Array[];
  readonly withdrawals: readonly WithdrawalOverride[];
};

/** The finished block: roots, bloom and size computed, as a header and as the RPC's view. */
export async function assembleBlock(
  p: BlockParts,
): Promise<{ header: BlockHeader; view: BlockView }> {
  const shanghai = p.common.isActivatedEIP(4895);
  const withdrawals = p.withdrawals.map((w) => [
    bigIntToUnpaddedBytes(w.index),
    bigIntToUnpaddedBytes(w.validatorIndex),
    w.address,
    bigIntToUnpaddedBytes(w.amount),
  ]);
  const bloom = new Uint8Array(256);
  for (const b of p.blooms) for (let i = 0; i < 256; i++) bloom[i]! |= b[i]!;
  const header = p.header;
  // The header is unfrozen and hashes what its fields hold when asked.
  Object.assign(header, {
    ...p.fields,
    transactionsTrie: listRoot(p.transactions),
    receiptTrie: listRoot(p.receipts),
    logsBloom: bloom,
    ...(shanghai
      ? {
          withdrawalsRoot: listRoot(withdrawals.map((w) => RLP.encode(w))),
        }
      : {}),
  });
  // Legacy transactions are lists in a block body, typed ones byte strings.
  const body = p.transactions.map((raw) => (raw[0]! >= 0xc0 ? RLP.decode(raw) : raw));
  const size = RLP.encode([
    header.raw(),
    body,
    [],
    ...(shanghai ? [withdrawals] : []),
  ] as Parameters<typeof RLP.encode>[0]).length;
  const view: BlockView = {
    header: headerView(header),
    size,
    transactions: p.views,
    uncleHashes: [],
    withdrawals: shanghai ? p.withdrawals.map((w) => ({ ...w })) : undefined,
  };
  return { header, view };
}
