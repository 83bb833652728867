// A forked chain's base record (meta forkBase) as the archive keeps it: JSON text.
import { bytesToHex, hexToBytes } from "../util/hex.ts";

/** A forked chain's base block F (meta forkBase): its state beyond the chain's writes is the upstream's. */
export type StoredForkBase = {
  readonly chainId: bigint;
  readonly number: number;
  readonly hash: Uint8Array;
  /** The state root of the chain's own (partial) trie at F, where its blocks build from. */
  readonly stateRoot: Uint8Array;
};

export function encodeForkBase(b: StoredForkBase): string {
  return JSON.stringify({
    chainId: b.chainId.toString(),
    number: b.number,
    hash: bytesToHex(b.hash),
    stateRoot: bytesToHex(b.stateRoot),
  });
}

export function decodeForkBase(json: string): StoredForkBase {
  const o = JSON.parse(json) as {
    chainId: string;
    number: number;
    hash: string;
    stateRoot: string;
  };
  return {
    chainId: BigInt(o.chainId),
    number: o.number,
    hash: hexToBytes(o.hash),
    stateRoot: hexToBytes(o.stateRoot),
  };
}
