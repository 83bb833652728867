// The dev chain's test-account keys: eth_sendTransaction and eth_signTransaction sign with them,
// eth_sign and personal_sign (EIP-191) and eth_signTypedData_v4 (EIP-712) too, deterministically
// (RFC 6979), so the same request signs to the same bytes as on anvil.

import { createTx, type TypedTxData } from "@ethereumjs/tx";
import secp256k1 from "secp256k1";
import { type ChainSpec, commonAt } from "../chain/genesis.ts";
import type { BlockAt, DevSigner, UnsignedTransaction } from "../services/signer.ts";
import { keccak256 } from "../util/crypto.ts";
import { FlashnodeError } from "../util/errors.ts";
import { bytesToUnprefixedHex, hexToBytes } from "../util/hex.ts";
import { placeholderSignature } from "./impersonation.ts";
import { libraryRefusalText } from "./txPrecheck.ts";
import { typedDataDigest } from "./typedData.ts";

/** Asked to sign for an account it holds no key of (anvil: -32602 "No Signer available"). */
export class NoSignerError extends FlashnodeError {
  readonly code = "NO_SIGNER";
  constructor() {
    super("No Signer available");
  }
}

/** A request the EVM library cannot make a transaction of, in geth's words (txPrecheck.ts). */
export class TxBuildError extends FlashnodeError {
  readonly code = "TX_BUILD";
}

const utf8 = new TextEncoder();

function txData(tx: UnsignedTransaction): TypedTxData {
  return {
    type: tx.type,
    chainId: tx.chainId,
    nonce: tx.nonce,
    gasLimit: tx.gasLimit,
    ...(tx.to === undefined ? {} : { to: tx.to }),
    value: tx.value,
    data: tx.data,
    ...(tx.gasPrice === undefined ? {} : { gasPrice: tx.gasPrice }),
    ...(tx.maxFeePerGas === undefined ? {} : { maxFeePerGas: tx.maxFeePerGas }),
    ...(tx.maxPriorityFeePerGas === undefined
      ? {}
      : { maxPriorityFeePerGas: tx.maxPriorityFeePerGas }),
    ...(tx.accessList === undefined
      ? {}
      : {
          accessList: tx.accessList.map((e) => ({
            address: e.address,
            storageKeys: e.storageKeys,
          })),
        }),
    ...(tx.authorizationList === undefined
      ? {}
      : {
          authorizationList: tx.authorizationList.map((a) => ({
            chainId: a.chainId,
            address: a.address,
            nonce: a.nonce,
            yParity: a.yParity,
            r: a.r,
            s: a.s,
          })),
        }),
  } as TypedTxData;
}

function signDigest(key: Uint8Array, digest: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1.ecdsaSign(digest, key);
  const out = new Uint8Array(65);
  out.set(signature, 0);
  out[64] = 27 + recid;
  return out;
}

export function createDevSigner(
  spec: ChainSpec,
  accounts: ReadonlyArray<{ readonly address: string; readonly privateKey: string }>,
): DevSigner {
  const keys = new Map<string, Uint8Array>();
  for (const a of accounts) keys.set(a.address.slice(2).toLowerCase(), hexToBytes(a.privateKey));
  const keyOf = (address: Uint8Array): Uint8Array => {
    const key = keys.get(bytesToUnprefixedHex(address));
    if (key === undefined) throw new NoSignerError();
    return key;
  };
  const build = (tx: UnsignedTransaction, at: BlockAt, signature?: { r: bigint; s: bigint }) => {
    try {
      return createTx(
        {
          ...txData(tx),
          ...(signature === undefined
            ? {}
            : {
                // Legacy EIP-155: v = 2 × chain id + 35 (+ yParity 0).
                v: tx.type === 0 ? tx.chainId * 2n + 35n : 0n,
                r: signature.r,
                s: signature.s,
              }),
        },
        { common: commonAt(spec, at.number, at.timestamp) },
      );
    } catch (e) {
      throw new TxBuildError(libraryRefusalText((e as Error).message));
    }
  };
  return {
    accounts: accounts.map((a) => hexToBytes(a.address)),
    canSign: (address) => keys.has(bytesToUnprefixedHex(address)),
    signTransaction: (from, tx, at) => build(tx, at).sign(keyOf(from)).serialize(),
    placeholderTransaction: (from, tx, at) => build(tx, at, placeholderSignature(from)).serialize(),
    signMessage(address, message) {
      const prefix = utf8.encode(`\x19Ethereum Signed Message:\n${message.length}`);
      return signDigest(keyOf(address), keccak256(Buffer.concat([prefix, message])));
    },
    signTypedData: (address, typedData) => signDigest(keyOf(address), typedDataDigest(typedData)),
  };
}
