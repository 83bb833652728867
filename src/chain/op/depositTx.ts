// The OP-stack deposit transaction (type 0x7e, OP specs deposits.md): an L1-derived transaction
// with no signature, no nonce and no fee fields. Encoded as 0x7e ‖ rlp([sourceHash, from, to,
// mint, value, gas, isSystemTx, data]); its hash is keccak256 of that envelope. The EVM library
// has no such type: this class carries what the block, the tries and the views read from one
// (`type`, `serialize`, `hash`, sender, gas, calldata) and execution runs it with deposit
// semantics (src/exec/op/opExecution.ts), never through the library's runTx.
import type { Common } from "@ethereumjs/common";
import { RLP } from "@ethereumjs/rlp";
import { Capability, paramsTx } from "@ethereumjs/tx";
import { Address } from "@ethereumjs/util";
import { keccak256 } from "../../util/crypto.ts";
import { FlashnodeError } from "../../util/errors.ts";
import { bigIntToBytes, bytesToBigInt } from "../../util/hex.ts";

export const DEPOSIT_TX_TYPE = 0x7e;

export class DepositDecodeError extends FlashnodeError {
  readonly code = "DEPOSIT_DECODE";
}

export type DepositFields = {
  readonly sourceHash: Uint8Array;
  readonly from: Uint8Array;
  /** undefined: a contract creation. */
  readonly to: Uint8Array | undefined;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly isSystemTx: boolean;
  readonly data: Uint8Array;
};

const EMPTY = new Uint8Array(0);

export class DepositTx {
  readonly type = DEPOSIT_TX_TYPE;
  readonly sourceHash: Uint8Array;
  readonly from: Address;
  readonly to: Address | undefined;
  readonly mint: bigint;
  readonly value: bigint;
  readonly gasLimit: bigint;
  readonly isSystemTx: boolean;
  readonly data: Uint8Array;
  /** Deposits have no nonce field; the nonce they use is in their receipt (depositNonce). */
  readonly nonce = 0n;
  readonly gasPrice = 0n;
  readonly v = undefined;
  readonly r = undefined;
  readonly s = undefined;
  private encoded: Uint8Array | undefined;
  private txHash: Uint8Array | undefined;

  readonly common: Common;

  constructor(fields: DepositFields, common: Common) {
    // As the library's own transactions do: a copy carrying the transaction gas parameters.
    this.common = common.copy();
    this.common.updateParams(paramsTx);
    if (fields.sourceHash.length !== 32)
      throw new DepositDecodeError("deposit source hash must be 32 bytes");
    if (fields.from.length !== 20) throw new DepositDecodeError("deposit from must be 20 bytes");
    if (fields.to !== undefined && fields.to.length !== 20)
      throw new DepositDecodeError("deposit to must be 20 bytes");
    this.sourceHash = fields.sourceHash;
    this.from = new Address(fields.from);
    this.to = fields.to === undefined ? undefined : new Address(fields.to);
    this.mint = fields.mint;
    this.value = fields.value;
    this.gasLimit = fields.gasLimit;
    this.isSystemTx = fields.isSystemTx;
    this.data = fields.data;
  }

  /** What the block body and tx trie hold: the EIP-2718 envelope. */
  serialize(): Uint8Array {
    this.encoded ??= encodeDeposit(this.fields());
    return this.encoded;
  }

  /** A typed transaction's raw form in a block body is its envelope. */
  raw(): Uint8Array {
    return this.serialize();
  }

  hash(): Uint8Array {
    this.txHash ??= keccak256(this.serialize());
    return this.txHash;
  }

  getSenderAddress(): Address {
    return this.from;
  }

  isSigned(): boolean {
    return true;
  }

  /** Block.raw() asks: a typed transaction goes into the body as its envelope. */
  supports(capability: number): boolean {
    return capability === Capability.EIP2718TypedTransaction;
  }

  /** Intrinsic gas as for any message: base, calldata, creation and init-code words. */
  getIntrinsicGas(): bigint {
    // EIP-7623's floor (Prague) is applied by the deposit runner, as for any transaction.
    const c = this.common;
    let gas = c.param("txGas");
    for (const b of this.data)
      gas += b === 0 ? c.param("txDataZeroGas") : c.param("txDataNonZeroGas");
    if (this.to === undefined) {
      gas += c.param("txCreationGas");
      if (c.isActivatedEIP(3860))
        gas += c.param("initCodeWordGas") * BigInt(Math.ceil(this.data.length / 32));
    }
    return gas;
  }

  fields(): DepositFields {
    return {
      sourceHash: this.sourceHash,
      from: this.from.bytes,
      to: this.to?.bytes,
      mint: this.mint,
      value: this.value,
      gasLimit: this.gasLimit,
      isSystemTx: this.isSystemTx,
      data: this.data,
    };
  }
}

/** 0x7e ‖ rlp([sourceHash, from, to, mint, value, gas, isSystemTx, data]) */
export function encodeDeposit(f: DepositFields): Uint8Array {
  const payload = RLP.encode([
    f.sourceHash,
    f.from,
    f.to ?? EMPTY,
    bigIntToBytes(f.mint),
    bigIntToBytes(f.value),
    bigIntToBytes(f.gasLimit),
    f.isSystemTx ? Uint8Array.of(1) : EMPTY,
    f.data,
  ]);
  const out = new Uint8Array(payload.length + 1);
  out[0] = DEPOSIT_TX_TYPE;
  out.set(payload, 1);
  return out;
}

export function isDepositTx(tx: { readonly type: number }): tx is DepositTx {
  return tx.type === DEPOSIT_TX_TYPE;
}

function bytesField(v: unknown, what: string): Uint8Array {
  if (!(v instanceof Uint8Array))
    throw new DepositDecodeError(`deposit ${what} is not a byte string`);
  return v;
}

function quantityField(v: unknown, what: string): bigint {
  const b = bytesField(v, what);
  if (b.length > 32) throw new DepositDecodeError(`deposit ${what} exceeds 256 bits`);
  if (b.length > 0 && b[0] === 0)
    throw new DepositDecodeError(`deposit ${what} has leading zero bytes`);
  return bytesToBigInt(b);
}

/** Decodes a 0x7e envelope; throws DepositDecodeError on anything else. */
export function decodeDepositTx(raw: Uint8Array, common: Common): DepositTx {
  if (raw[0] !== DEPOSIT_TX_TYPE) throw new DepositDecodeError("not a deposit transaction");
  let items: unknown;
  try {
    items = RLP.decode(raw.subarray(1));
  } catch (e) {
    throw new DepositDecodeError(`deposit RLP: ${(e as Error).message}`);
  }
  if (!Array.isArray(items) || items.length !== 8)
    throw new DepositDecodeError("deposit must be an RLP list of 8 fields");
  const [sourceHash, from, to, mint, value, gas, isSystem, data] = items as unknown[];
  const toBytes = bytesField(to, "to");
  const systemFlag = bytesField(isSystem, "isSystemTx");
  if (systemFlag.length > 1 || (systemFlag.length === 1 && systemFlag[0] !== 1))
    throw new DepositDecodeError("deposit isSystemTx is not a boolean");
  return new DepositTx(
    {
      sourceHash: bytesField(sourceHash, "sourceHash"),
      from: bytesField(from, "from"),
      to: toBytes.length === 0 ? undefined : toBytes,
      mint: quantityField(mint, "mint"),
      value: quantityField(value, "value"),
      gasLimit: quantityField(gas, "gas"),
      isSystemTx: systemFlag.length === 1,
      data: bytesField(data, "data"),
    },
    common,
  );
}
