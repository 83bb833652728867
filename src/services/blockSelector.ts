// A block as a request names it (EIP-1898: a tag, a number or a hash), parsed by rpc/params.ts and
// resolved by rpc/resolveBlock.ts; filters keep theirs until they run.
export type BlockTag = "latest" | "earliest" | "pending" | "safe" | "finalized";
export type BlockSelector =
  | { kind: "tag"; tag: BlockTag }
  | { kind: "number"; number: bigint }
  | { kind: "hash"; hash: Uint8Array; requireCanonical: boolean };
/** What geth's bare rpc.BlockNumber accepts: a tag or a number, never a hash. */
export type BlockNumberSelector = Extract<BlockSelector, { kind: "tag" | "number" }>;
