// OP-stack chains a fork recognises by chain id, with the EIP-1559 parameters their genesis set
// (superchain registry: elasticity 6, denominator 50, 250 from Canyon; Base Sepolia's elasticity
// 10). Since Holocene the parameters travel in each block's extraData, which wins when present:
// foundry #12943 forked Base with Ethereum's 2 and 8.

export type Eip1559Params = { readonly elasticity: number; readonly denominator: number };

const OP_DEFAULT: Eip1559Params = { elasticity: 6, denominator: 250 };

/** Chain id → name and pre-Holocene (Canyon) EIP-1559 parameters. */
const KNOWN_OP_CHAINS: ReadonlyMap<bigint, { readonly name: string } & Eip1559Params> = new Map([
  [10n, { name: "OP Mainnet", ...OP_DEFAULT }],
  [11155420n, { name: "OP Sepolia", ...OP_DEFAULT }],
  [8453n, { name: "Base", ...OP_DEFAULT }],
  [84532n, { name: "Base Sepolia", elasticity: 10, denominator: 250 }],
  [130n, { name: "Unichain", ...OP_DEFAULT }],
  [1301n, { name: "Unichain Sepolia", ...OP_DEFAULT }],
  [480n, { name: "World Chain", ...OP_DEFAULT }],
  [57073n, { name: "Ink", ...OP_DEFAULT }],
  [7777777n, { name: "Zora", ...OP_DEFAULT }],
  [34443n, { name: "Mode", ...OP_DEFAULT }],
  [1135n, { name: "Lisk", ...OP_DEFAULT }],
  [252n, { name: "Fraxtal", ...OP_DEFAULT }],
]);

/** The chain's name, when it is an OP-stack chain flashnode knows by id. */
export function knownOpChain(chainId: bigint): string | undefined {
  return KNOWN_OP_CHAINS.get(chainId)?.name;
}

/**
 * Holocene's extraData (version 0: denominator u32 ‖ elasticity u32; Jovian's version 1 adds a
 * u64 minimum base fee): the parameters the next block's base fee is computed with.
 */
export function eip1559FromExtraData(extraData: Uint8Array): Eip1559Params | undefined {
  const version = extraData[0];
  if (!((version === 0 && extraData.length === 9) || (version === 1 && extraData.length === 17)))
    return undefined;
  const view = new DataView(extraData.buffer, extraData.byteOffset, extraData.byteLength);
  const denominator = view.getUint32(1);
  const elasticity = view.getUint32(5);
  // Zero means "use the chain's configured values" (Holocene spec).
  if (denominator === 0 || elasticity === 0) return undefined;
  return { elasticity, denominator };
}

/** The parameters of an OP-stack chain: its block's extraData's, its known ones, or OP's. */
export function opEip1559Params(chainId: bigint, extraData: Uint8Array): Eip1559Params {
  const known = KNOWN_OP_CHAINS.get(chainId);
  return (
    eip1559FromExtraData(extraData) ??
    (known === undefined
      ? OP_DEFAULT
      : { elasticity: known.elasticity, denominator: known.denominator })
  );
}
